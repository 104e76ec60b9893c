#pragma once
// How many optimizer steps make an epoch of a run, from what the run database records, so the epoch axis is
// right for a run stopped in its first epoch and for one still in it (the rows alone only tell once epoch 2
// has begun). The worker's "started" event says how many steps the whole run takes ("..., 4300 steps, ..."),
// the run's preset how many epochs (training.epochs, or the stages' epochs added up). A resumed run has a
// "started" event per start; the last one counts.
// Pure functions; any thread.

#include "run_records.h"

#include <QJsonObject>
#include <QList>

namespace ty {

// The steps of the whole run from its "started" events; 0 when none says.
qint64 recordedTotalSteps(const QList<RunEvent> &events);
// The epochs the preset trains; 0 when the preset names none that can be read.
int presetEpochs(const QJsonObject &preset);
// Total steps / epochs, rounded; 0 while unknown (no "started" event yet).
qint64 recordedStepsPerEpoch(const QJsonObject &preset, const QList<RunEvent> &events);

} // namespace ty
