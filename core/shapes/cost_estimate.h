#pragma once
// What a pipeline computes, from the plan's shapes without LibTorch: each node's multiply-accumulates (MACs;
// 1 MAC = 2 FLOPs) and the receptive field after each convolution or pooling.
//   forward MACs        per sample, the products with a weight, or of two activations in a matrix product, each
//                       added to a sum (conv: out_h x out_w x out_c x k_h x k_w x in_c; linear: in x out per row;
//                       the per-block rules are in shape_rules_costs.cpp). Biases, element-wise work (activations,
//                       normalisation, pooling, adding, dropout, transforms), losses and metrics count 0.
//   training step MACs  3 x forward x training.batch_size: the backward pass computes, for each product, the
//                       gradient of its input and that of its weight (or of its other input), each as many MACs as
//                       the forward. An upper bound: autograd skips the input gradient of a first layer whose
//                       input needs none (the data) and the weight gradients of frozen nodes.
//   receptive field     per spatial axis, how many positions one output value sees (size) and how far apart two
//                       neighbouring values' fields are (stride). A window of kernel k and stride s after a field
//                       (size r, stride j) gives (r + (k - 1) j, j s); position-by-position blocks keep the field,
//                       the largest of their inputs' (branches joined by add or concat); blocks that mix positions
//                       otherwise or leave the grid (linear, flatten, reshape, attention, upsampling, transposed
//                       convolution) end it. The first window after the data, or after such a block, starts from
//                       (1, 1): the positions are those of its input.

#include "pipeline_plan.h"
#include "training_settings.h"

namespace ty {

// Fills every planned node's cost and the report's total. The total is known when the plan has no errors.
void estimatePlanCost(PipelinePlan &plan, const TrainingSettings &settings);

// "650", "627k", "10.0M", "5.33G": three significant digits, powers of 1000.
QString macCountText(qint64 macs);
// "14x14, stride 2"; "9, stride 1" along one axis; "6x10, stride 2x4" where the axes differ. Empty when unknown.
QString receptiveFieldText(const ReceptiveField &field);

} // namespace ty
