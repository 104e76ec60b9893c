#pragma once
// Training stages and warm start, checked against the network: what `validate` reports per stage (trainable
// and frozen parameters) and what makes a stage impossible (changing the network's shape, freezing every
// parameter). The engine runs the same checks before training.

#include "preset.h"
#include "shape_types.h"
#include "training_stages.h"

namespace ty {

struct DatasetShape;

// The issues of the training section as a whole: validateTraining plus the stages' and init_from's own
// (unknown keys, bad values, unknown nodes), each pinned to its key.
Issues trainingSectionIssues(const Preset &preset);

// Fills report->stages from `stages` (nothing for the implicit stage) and adds to report->issues what the
// shapes make wrong: a stage whose overrides change a node's output shape or parameter count, a stage with
// nothing left to train. `report` holds the base preset's shapes.
void inspectStages(const QList<StagePlan> &stages, const DatasetShape &datasetShape, ShapeReport *report);

} // namespace ty
