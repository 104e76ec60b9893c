#include "evaluation_records.h"

namespace ty {

EvaluationRecord evaluationRecordOf(qint64 runId, const EvaluationReport &report, int worstLimit)
{
    EvaluationRecord record;
    record.runId = runId;
    record.split = report.split;
    record.checkpointStep = report.checkpointStep;
    record.task = report.classification ? QStringLiteral("classification") : QStringLiteral("regression");
    record.sampleCount = report.count;
    record.accuracy = report.accuracy;
    record.summary = evaluationToJson(report, worstLimit);
    return record;
}

QList<EvaluationSampleRow> evaluationSampleRowsOf(const EvaluationReport &report)
{
    QList<EvaluationSampleRow> rows;
    rows.reserve(qsizetype(report.samples.size()));
    for (const EvaluatedSample &s : report.samples)
        rows.append(EvaluationSampleRow{s.index, s.label, s.predicted, s.confidence});
    return rows;
}

} // namespace ty
