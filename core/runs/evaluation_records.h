#pragma once
// An evaluation report as the run database stores it (tables evaluations and evaluation_samples,
// docs/run-database.md): the record, whose summary is the report's JSON, and one row per evaluated sample.

#include "evaluation_report.h"
#include "run_records.h"

#include <QList>

namespace ty {

// The record of `report` for run `runId`; its summary lists the `worstLimit` worst samples.
EvaluationRecord evaluationRecordOf(qint64 runId, const EvaluationReport &report, int worstLimit = 100);
// One row per sample of `report`, in its order.
QList<EvaluationSampleRow> evaluationSampleRowsOf(const EvaluationReport &report);

} // namespace ty
