#include "team_evaluation_samples.h"

#include "pg_connection.h"
#include "run_bundle_columns.h"
#include "sqlite_connection.h"

#include <QHash>
#include <QList>
#include <QPair>
#include <QStringList>

#include <algorithm>

namespace ty {

namespace {

using EvaluationKey = QPair<QString, qint64>;  // split, checkpoint step

struct StoredEvaluation {
    QString createdAt;
    qint64 samples = 0;
};

struct LocalEvaluation {
    qint64 id = 0;
    EvaluationKey key;
    QString createdAt;
    qint64 samples = 0;
};

Result<QList<LocalEvaluation>> localEvaluations(SqliteConnection &local, qint64 runId, const QString &what)
{
    SqliteStatement select;
    if (Status prepared = select.prepare(local,
                                         "SELECT e.id, e.split, e.checkpoint_step, e.created_at,"
                                         " (SELECT count(*) FROM evaluation_samples s WHERE s.evaluation_id = e.id)"
                                         " FROM evaluations e WHERE e.run_id = ? ORDER BY e.id",
                                         what);
        !prepared.ok())
        return prepared.error();
    select.bindInt(1, runId);
    QList<LocalEvaluation> evaluations;
    for (;;) {
        Result<bool> next = select.next(what);
        if (!next)
            return next.error();
        if (!next.value())
            return evaluations;
        evaluations.append({select.intColumn(0), {select.textColumn(1), select.intColumn(2)}, select.textColumn(3), select.intColumn(4)});
    }
}

Status sendSamples(SqliteConnection &local, PgConnection &server, const LocalEvaluation &evaluation, const QString &uuid, qint64 batchRows,
                   const QString &what)
{
    SqliteStatement select;
    if (Status prepared = select.prepare(local,
                                         "SELECT sample_index, label, predicted, confidence FROM evaluation_samples"
                                         " WHERE evaluation_id = ? ORDER BY sample_index",
                                         what);
        !prepared.ok())
        return prepared;
    select.bindInt(1, evaluation.id);
    QByteArray prefix;
    appendCopyField(prefix, uuid);
    prefix += '\t';
    appendCopyField(prefix, evaluation.key.first);
    prefix += '\t';
    appendCopyField(prefix, evaluation.key.second);
    QByteArray batch;
    qint64 inBatch = 0;
    for (;;) {
        Result<bool> next = select.next(what);
        if (!next)
            return next.error();
        if (next.value()) {
            batch += prefix;
            for (int column = 0; column < 4; ++column) {
                batch += '\t';
                appendCopyField(batch, select.valueColumn(column));
            }
            batch += '\n';
            ++inBatch;
        }
        if (inBatch > 0 && (!next.value() || inBatch >= batchRows)) {
            if (Status copied = server.copyIn(QStringLiteral("COPY trainyard.evaluation_samples FROM STDIN"), batch, what); !copied.ok())
                return copied;
            batch.clear();
            inBatch = 0;
        }
        if (!next.value())
            return Status::success();
    }
}

} // namespace

Result<TeamSamplesPushReport> pushEvaluationSamples(SqliteConnection &local, PgConnection &server, qint64 runId, const QString &uuid,
                                                    qint64 batchRows)
{
    const QString what = QStringLiteral("cannot push the evaluation samples of run %1").arg(runId);
    Result<PgResult> onStore = server.exec(QStringLiteral("SELECT e.split, e.checkpoint_step, e.created_at,"
                                                          " (SELECT count(*) FROM trainyard.evaluation_samples s WHERE s.run_uuid = e.run_uuid"
                                                          " AND s.split = e.split AND s.checkpoint_step = e.checkpoint_step)"
                                                          " FROM trainyard.evaluations e WHERE e.run_uuid = $1"),
                                           {uuid}, what);
    if (!onStore)
        return onStore.error();
    QHash<EvaluationKey, StoredEvaluation> stored;
    for (int row = 0; row < onStore.value().rows(); ++row)
        stored.insert({onStore.value().text(row, 0), onStore.value().integer(row, 1)},
                      {onStore.value().text(row, 2), onStore.value().integer(row, 3)});
    Result<QList<LocalEvaluation>> evaluations = localEvaluations(local, runId, what);
    if (!evaluations)
        return evaluations.error();
    TeamSamplesPushReport report;
    QStringList splits, steps;
    for (const LocalEvaluation &evaluation : evaluations.value()) {
        splits << evaluation.key.first;
        steps << QString::number(evaluation.key.second);
        const auto held = stored.constFind(evaluation.key);
        if (held != stored.constEnd() && held->createdAt == evaluation.createdAt && held->samples == evaluation.samples)
            continue;
        if (Result<PgResult> cleared = server.exec(QStringLiteral("DELETE FROM trainyard.evaluation_samples"
                                                                  " WHERE run_uuid = $1 AND split = $2 AND checkpoint_step = $3"),
                                                   {uuid, evaluation.key.first, evaluation.key.second}, what);
            !cleared)
            return cleared.error();
        if (Status sent = sendSamples(local, server, evaluation, uuid, std::max<qint64>(1, batchRows), what); !sent.ok())
            return sent.error();
        ++report.evaluations;
        report.samples += evaluation.samples;
    }
    // Samples of evaluations the run no longer has (one evaluated again replaces its row here too).
    if (Result<PgResult> gone = server.exec(QStringLiteral("DELETE FROM trainyard.evaluation_samples s WHERE s.run_uuid = $1 AND NOT EXISTS"
                                                           " (SELECT 1 FROM unnest($2::text[], $3::bigint[]) AS k(split, step)"
                                                           " WHERE k.split = s.split AND k.step = s.checkpoint_step)"),
                                            {uuid, pgTextArray(splits), QStringLiteral("{%1}").arg(steps.join(QLatin1Char(',')))}, what);
        !gone)
        return gone.error();
    return report;
}

Result<qint64> copyEvaluationSamples(PgConnection &server, SqliteConnection &cache, qint64 runId, const QString &uuid)
{
    const QString what = QStringLiteral("cannot copy the evaluation samples of run %1 from the team store").arg(runId);
    Result<PgResult> rows = server.exec(QStringLiteral("SELECT split, checkpoint_step, sample_index, label, predicted, confidence"
                                                       " FROM trainyard.evaluation_samples WHERE run_uuid = $1"
                                                       " ORDER BY split, checkpoint_step, sample_index"),
                                        {uuid}, what);
    if (!rows) {
        if (server.lastErrorWasPermission())
            return qint64(0);
        return rows.error();
    }
    SqliteStatement insert;
    if (Status prepared = insert.prepare(cache,
                                         "INSERT INTO evaluation_samples (evaluation_id, sample_index, label, predicted, confidence)"
                                         " SELECT id, ?4, ?5, ?6, ?7 FROM evaluations WHERE run_id = ?1 AND split = ?2 AND checkpoint_step = ?3",
                                         what);
        !prepared.ok())
        return prepared.error();
    const PgResult &found = rows.value();
    for (int row = 0; row < found.rows(); ++row) {
        bindBundleRow(insert, 1,
                      {QVariant(runId), found.value(row, 0, BundleColumn::Text), found.value(row, 1, BundleColumn::Integer),
                       found.value(row, 2, BundleColumn::Integer), found.value(row, 3, BundleColumn::Real),
                       found.value(row, 4, BundleColumn::Real), found.value(row, 5, BundleColumn::Real)});
        if (Status done = insert.run(what); !done.ok())
            return done.error();
    }
    return qint64(found.rows());
}

} // namespace ty
