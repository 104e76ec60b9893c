#pragma once
// dataset.cifar: the CIFAR-10 and CIFAR-100 binary versions, as their authors distribute them
// (cifar-10-batches-bin/, cifar-100-binary/). A CIFAR-10 record is one label byte and 3,072 pixel bytes (the red,
// green and blue 32 x 32 planes: already channels first); a CIFAR-100 record has two label bytes, the coarse
// (20 super-classes) then the fine (100 classes) label. `dir` holds data_batch_1.bin ... data_batch_5.bin and
// test_batch.bin (CIFAR-10) or train.bin and test.bin (CIFAR-100); `variant` auto tells them apart by those
// names. Class names come from batches.meta.txt, fine_label_names.txt or coarse_label_names.txt when present.
// Every file is checked against its record size and every label against the class count before use.

#include "dataset_loader.h"

namespace ty {

Result<DatasetShape> describeCifarDataset(const DatasetRequest &request);
Result<LoadedDataset> loadCifarDataset(const DatasetRequest &request);

} // namespace ty
