#pragma once
// The sweep view's three charts, drawn into QCustomPlots from a sweep's ranked trials (sweep_trial_rows.h):
// parallel coordinates (an axis per searched key and one for the metric, a line per trial), the metric against
// one key, and every trial's metric curve by epoch. Numeric keys spanning more than a decade use a log scale,
// others (block swaps, choices) are categories. The best trial is drawn thick; pruned trials dashed.
// And the importance of each searched key (sweep_importance_plot.cpp).
// Thread affinity: the GUI thread (reads the run database for the curves).

#include "run_records.h"
#include "sweep_importance.h"
#include "sweep_trial_rows.h"

class QCustomPlot;

namespace ty {

class RunDatabase;

void drawParallelCoordinates(QCustomPlot *plot, const SweepRecord &sweep, const QList<SweepTrialRow> &rows);
void drawMetricAgainstKey(QCustomPlot *plot, const SweepRecord &sweep, const QList<SweepTrialRow> &rows, const QString &key);
void drawTrialCurves(QCustomPlot *plot, const RunDatabase &db, const SweepRecord &sweep, const QList<SweepTrialRow> &rows);
// Bars of importance with the spread as error bars, most important at the top; the absent reason as a note.
void drawParameterImportance(QCustomPlot *plot, const SweepImportance &importance);
// A key's label on that chart: "opt.lr  (ρ -0.91)"; "–" for a key without a correlation.
QString importanceLabel(const ParameterImportance &parameter);

} // namespace ty
