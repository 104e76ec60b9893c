#pragma once
// The dataset node of a preset and the request that loads it: what training, evaluation and `run`'s load
// ahead (app/cli/run_data_prefetch.h) all ask loadDataset() for, built in one place so that they ask alike.

#include "dataset_loader.h"
#include "preset.h"

namespace ty {

// The first node whose block is a dataset block; nullptr when there is none.
const Node *firstDatasetNode(const Preset &preset);
// Loads `node` of `preset`: its block's effective parameters, paths relative to the preset's folder.
DatasetRequest datasetRequest(const Preset &preset, const Node &node, bool stream = false);

} // namespace ty
