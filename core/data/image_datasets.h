#pragma once
// The image data set blocks, read into bytes of the chosen channels and size (CHW, scaled by 1/255):
//
// dataset.image_folder: `dir` holds one sub-folder per class, named after it (the classes in code point order);
//   the images (PNG, JPEG, BMP) may sit deeper inside a class folder; other files and hidden entries are skipped.
//   When `dir` has a `train/` sub-folder, it holds the class folders of the training samples, and `val/` and
//   `test/`, when there, those of the validation and test samples (a class folder may be missing there, never
//   unknown to train/). Any other sub-folder next to them is an error.
// dataset.image_list: a CSV file with a column of image paths (relative to the CSV's folder, or absolute), a
//   column of labels (the distinct labels are the classes, sorted as dataset.csv sorts them) and optionally a
//   column saying each row's split (train, val or test).
//
// The splits: test samples come from test/ (or the rows marked test) where the layout has them, otherwise
// test_fraction of the training samples are drawn by a shuffle seeded with split_seed. Validation samples come
// from val/ (or the rows marked val) where there are any, otherwise from the common split (dataset_split.h).
// The splits are chosen before anything is decoded, so `limit` decodes only what a run uses.
//
// Decoding runs on worker threads with the decoded-image cache (image_files.h). A request with `stream` decodes
// into a file (the cache entry, or a temporary file) in chunks and hands out its rows (SampleArray::store), so
// no split is ever whole in memory. Describing (validate) lists the
// files and checks each is a regular file, without decoding. Errors name the node, the field and the file (and
// a CSV's line).

#include "dataset_loader.h"

namespace ty {

Result<DatasetShape> describeImageFolder(const DatasetRequest &request);
Result<LoadedDataset> loadImageFolder(const DatasetRequest &request);

Result<DatasetShape> describeImageList(const DatasetRequest &request);
Result<LoadedDataset> loadImageList(const DatasetRequest &request);

} // namespace ty
