#pragma once
// The memory a training run holds on its device at its peak, estimated from the plan's shapes without
// LibTorch, as float32 (4 bytes a value):
//   parameters   every trainable weight;
//   gradients    one per weight;
//   optimizer    the optimizer's state, per weight as many values as its kind keeps (shape_rules.h): Adam and
//                AdamW 2, SGD 1 with momentum and 0 without, RMSprop 1 and 1 more with momentum, Adagrad 1;
//   activations  the larger of
//                - a training step: every node's output for one batch of training.batch_size (the dataset
//                  node's is the batch of samples), all kept for the backward pass, plus the gradients in flight
//                  while the node with the largest output and inputs runs backward (one value per value of
//                  its output and its inputs);
//                - an evaluation step: every node's output for one batch of training.eval_batch_size (the engine
//                  keeps every node's output until the batch is scored; no gradients);
//                each batch at most the data set's size;
//   data         every split (train, validation, test) resident on the device, targets as int64 class indices
//                or float32 values; samples as float32 on a GPU, and on the CPU as the data set holds them:
//                bytes (images, IDX, CIFAR, short text vocabularies) one byte a value, batches made floats as
//                they are drawn (DatasetShape::sampleValueBytes). training.device cpu counts the CPU's; auto and
//                cuda a GPU's, until placeDataOn says where the run went.
// Left out: the process itself (LibTorch and Qt, a few hundred MB on the CPU), kernels' workspaces and the
// allocator's caches, what an op keeps beyond its output (a max-pool's indices, a dropout's mask), and the
// host's copy of the data while it uploads. A view (flatten) is counted as if it were a copy.

#include "pipeline_plan.h"
#include "training_settings.h"

namespace ty {

// Fills every planned node's memory and the report's total. The total is known only when the plan has no
// errors and the dataset says how many samples it holds.
void estimatePlanMemory(PipelinePlan &plan, const TrainingSettings &settings);
// Counts the data as held on the CPU (`cpu`) or on a GPU, in the total and in the dataset node.
void placeDataOn(ShapeReport *report, bool cpu);

// "9.7 GB (parameters 1.2 GB, gradients 1.2 GB, optimizer state 2.4 GB, activations 4.7 GB for a batch of 128,
// data 0.2 GB)"; "data 47 MB on the CPU, 188 MB on a GPU" where the two differ.
QString memorySummary(const MemoryEstimate &memory);
// The ids of the `count` nodes that hold the most, largest first.
QStringList largestMemoryNodes(const ShapeReport &report, int count = 3);
// Why the run cannot fit `availableBytes` on `device` ("the device (cpu)", "this machine"): "the run needs about
// ... but the device (cpu) has 3.1 GB available; largest: conv2 6.1 GB, ...". Empty when it fits, or when the
// estimate or the available memory (-1) is not known.
QString memoryShortfall(const ShapeReport &report, qint64 availableBytes, const QString &device);

// "812 B", "3.4 kB", "12 MB", "9.7 GB": powers of 1000, two significant digits below 10.
QString byteSizeText(qint64 bytes);

} // namespace ty
