#pragma once
// "Fine-tune from this run": the preset that continues a trained run's network. It starts from the run's
// weights (training.init_from = {"run": ID, "checkpoint": "best" or "last"}) and trains in two stages:
//   head  every layer with parameters frozen except the head (the layers nearest each loss), 2 epochs (1 when
//         the run trained for 3 epochs or fewer);
//   all   every layer trainable again at a tenth of the optimizer's learning rate ("OPT.lr": lr / 10), as many
//         epochs as the run trained.
// training.epochs is removed (stages give the length); earlier stages and init_from are replaced. Pure: no
// files are read, the parameter counts come from a shape report of the run's preset.

#include "error.h"
#include "preset.h"
#include "shape_types.h"

namespace ty {

struct FineTuneSource {
    qint64 runId = 0;
    QString runName;
    QString checkpoint = QStringLiteral("last");  // "best" when the run has a best checkpoint
};

// The layers nearest each loss that have parameters: walking back from every loss along tensor edges, the first
// layer with parameters on each path. In graph order.
QStringList headNodes(const PipelineGraph &graph, const ShapeReport &report);

// The fine-tuning preset, or why there is none (no optimizer, no layer with parameters, nothing to freeze
// besides the head). `report` holds the parameter counts of `trained`'s nodes (inspectPresetShapes).
Result<Preset> fineTunePreset(const Preset &trained, const FineTuneSource &source, const ShapeReport &report);

} // namespace ty
