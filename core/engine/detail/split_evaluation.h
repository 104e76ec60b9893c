#pragma once
// Internal to ty_engine (includes LibTorch). One pass of a compiled model over a split in evaluation mode (no
// augmentation, dropout off, batch norm on its running statistics): the run's own loss and metric heads, and
// every sample's output scored into an EvaluationReport.

#include "detail/collectives.h"
#include "detail/compiled_pipeline.h"
#include "detail/device_data.h"
#include "evaluation_report.h"

namespace ty::detail {

// `split` is named in the report (test, val, train); `classNames` label the classes when known. The metrics are
// those the run records (the optimized losses' weighted sum as "loss", each metric head by node id); the outputs
// scored are those of the first optimized loss head's input (the logits, or the regression predictions), and
// without one nothing is scored.
// Leaves the model in evaluation mode. Throws on LibTorch errors.
// With `score` false only the metrics are computed (the validation after each epoch). With a `group` each rank
// evaluates its shard of the split and every rank gets the whole split's report.
EvaluationReport evaluateSplit(CompiledPipeline &pipeline, const DeviceSplit &split, const QString &splitName,
                               const QStringList &classNames, int64_t batchSize, int topK, bool score = true,
                               Collectives *group = nullptr);

} // namespace ty::detail
