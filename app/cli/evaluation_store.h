#pragma once
// Storing an evaluation report in the run database (tables evaluations and evaluation_samples, docs/run-database.md),
// for `trainyard-cli evaluate` and for the automatic test-split evaluation of every finished run.

#include "error.h"
#include "evaluation_report.h"

namespace ty::cli {

// Opens `dbPath` and stores `report` for run `runId`, replacing an earlier evaluation of the same split and
// checkpoint step; returns the evaluation's id.
Result<qint64> storeEvaluation(const QString &dbPath, qint64 runId, const EvaluationReport &report);

// The report as text: the scores, the per-class table, the confusion matrix and the `worst` worst samples.
QString evaluationText(const EvaluationReport &report, int worst);

} // namespace ty::cli
