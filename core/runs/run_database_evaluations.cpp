// RunDatabase: evaluations of a run's weights and their per-sample predictions (schema version 4).

#include "run_database.h"

#include "run_sqlite.h"

#include <QJsonDocument>
#include <QSqlQuery>
#include <QVariantList>

namespace ty {

namespace {

const char kEvaluationColumns[] =
    "id, run_id, split, checkpoint_step, created_at, task, sample_count, accuracy, summary_json";

EvaluationRecord evaluationFromRow(const QSqlQuery &q)
{
    EvaluationRecord r;
    r.id = q.value(0).toLongLong();
    r.runId = q.value(1).toLongLong();
    r.split = q.value(2).toString();
    r.checkpointStep = q.value(3).toLongLong();
    r.createdAt = fromRunDbTime(q.value(4));
    r.task = q.value(5).toString();
    r.sampleCount = q.value(6).toLongLong();
    r.accuracy = q.value(7).toDouble();
    r.summary = QJsonDocument::fromJson(q.value(8).toByteArray()).object();
    return r;
}

} // namespace

Result<qint64> RunDatabase::addEvaluation(const EvaluationRecord &e, const QList<EvaluationSampleRow> &samples)
{
    if (Status exists = requireRun(e.runId); !exists)
        return exists.error();
    qint64 id = 0;
    const Status status = inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        QSqlQuery remove(m_db);
        remove.prepare(QStringLiteral("DELETE FROM main.evaluations WHERE run_id = ? AND split = ? AND checkpoint_step = ?"));
        remove.addBindValue(e.runId);
        remove.addBindValue(e.split);
        remove.addBindValue(e.checkpointStep);
        if (!remove.exec())
            return runDbError(QStringLiteral("cannot replace the evaluation of run %1").arg(e.runId), m_path, remove.lastError());
        QSqlQuery insert(m_db);
        insert.prepare(QStringLiteral("INSERT INTO main.evaluations (run_id, split, checkpoint_step, created_at, task, sample_count,"
                                      " accuracy, summary_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
        insert.addBindValue(e.runId);
        insert.addBindValue(e.split);
        insert.addBindValue(e.checkpointStep);
        insert.addBindValue(runDbNow());
        insert.addBindValue(e.task);
        insert.addBindValue(e.sampleCount);
        insert.addBindValue(e.task == QStringLiteral("classification") ? QVariant(e.accuracy) : QVariant());
        insert.addBindValue(QString::fromUtf8(QJsonDocument(e.summary).toJson(QJsonDocument::Compact)));
        if (!insert.exec())
            return runDbError(QStringLiteral("cannot store an evaluation of run %1").arg(e.runId), m_path, insert.lastError());
        id = insert.lastInsertId().toLongLong();
        if (samples.isEmpty())
            return Status::success();
        QVariantList ids, indices, labels, predicted, confidences;
        for (const EvaluationSampleRow &s : samples) {
            ids << id;
            indices << s.index;
            labels << s.label;
            predicted << s.predicted;
            confidences << s.confidence;
        }
        QSqlQuery rows(m_db);
        rows.prepare(QStringLiteral("INSERT INTO main.evaluation_samples (evaluation_id, sample_index, label, predicted, confidence)"
                                    " VALUES (?, ?, ?, ?, ?)"));
        rows.addBindValue(ids);
        rows.addBindValue(indices);
        rows.addBindValue(labels);
        rows.addBindValue(predicted);
        rows.addBindValue(confidences);
        if (!rows.execBatch())
            return runDbError(QStringLiteral("cannot store the samples of an evaluation of run %1").arg(e.runId), m_path,
                              rows.lastError());
        return Status::success();
    });
    if (!status)
        return status.error();
    return id;
}

Result<QList<EvaluationRecord>> RunDatabase::evaluations(qint64 runId) const
{
    if (Status exists = requireRun(runId); !exists)
        return exists.error();
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("SELECT %1 FROM evaluations WHERE run_id = ? ORDER BY id DESC").arg(QLatin1String(kEvaluationColumns)));
    q.addBindValue(runId);
    if (!q.exec())
        return runDbError(QStringLiteral("cannot read the evaluations of run %1").arg(runId), m_path, q.lastError());
    QList<EvaluationRecord> out;
    while (q.next())
        out.append(evaluationFromRow(q));
    if (std::optional<Error> cut = rowsCutShort(q, QStringLiteral("the evaluations of run %1").arg(runId), m_path))
        return *cut;
    return out;
}

Result<EvaluationRecord> RunDatabase::evaluation(qint64 evaluationId) const
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("SELECT %1 FROM evaluations WHERE id = ?").arg(QLatin1String(kEvaluationColumns)));
    q.addBindValue(evaluationId);
    if (!q.exec())
        return runDbError(QStringLiteral("cannot read evaluation %1").arg(evaluationId), m_path, q.lastError());
    if (!q.next()) {
        if (std::optional<Error> cut = rowsCutShort(q, QStringLiteral("evaluation %1").arg(evaluationId), m_path))
            return *cut;
        return Error(QStringLiteral("no evaluation with id %1 in %2").arg(evaluationId).arg(m_path));
    }
    return evaluationFromRow(q);
}

Result<QList<QPair<qint64, qint64>>> RunDatabase::evaluatedRuns() const
{
    QSqlQuery q(m_db);
    if (!q.exec(QStringLiteral("SELECT run_id, max(id) FROM evaluations GROUP BY run_id ORDER BY run_id DESC")))
        return runDbError(QStringLiteral("cannot read the evaluated runs"), m_path, q.lastError());
    QList<QPair<qint64, qint64>> out;
    while (q.next())
        out.append({q.value(0).toLongLong(), q.value(1).toLongLong()});
    if (std::optional<Error> cut = rowsCutShort(q, QStringLiteral("the evaluated runs"), m_path))
        return *cut;
    return out;
}

Result<QList<EvaluationSampleRow>> RunDatabase::evaluationSamples(qint64 evaluationId, int label, int predicted) const
{
    QString sql = QStringLiteral("SELECT sample_index, label, predicted, confidence FROM evaluation_samples WHERE evaluation_id = ?");
    if (label >= 0)
        sql += QStringLiteral(" AND label = ?");
    if (predicted >= 0)
        sql += QStringLiteral(" AND predicted = ?");
    QSqlQuery q(m_db);
    q.prepare(sql + QStringLiteral(" ORDER BY sample_index"));
    q.addBindValue(evaluationId);
    if (label >= 0)
        q.addBindValue(double(label));
    if (predicted >= 0)
        q.addBindValue(double(predicted));
    if (!q.exec())
        return runDbError(QStringLiteral("cannot read the samples of evaluation %1").arg(evaluationId), m_path, q.lastError());
    QList<EvaluationSampleRow> out;
    while (q.next())
        out.append(EvaluationSampleRow{q.value(0).toLongLong(), q.value(1).toDouble(), q.value(2).toDouble(), q.value(3).toDouble()});
    if (std::optional<Error> cut = rowsCutShort(q, QStringLiteral("the samples of evaluation %1").arg(evaluationId), m_path))
        return *cut;
    return out;
}

} // namespace ty
