#include "team_push.h"

#include "pg_connection.h"
#include "sqlite_connection.h"
#include "team_evaluation_samples.h"
#include "team_listener.h"
#include "team_run_parents.h"
#include "team_schema.h"

#include <QCryptographicHash>
#include <QStringList>

#include <algorithm>

namespace ty {

namespace {

// One of a run's small tables: its rows as read here, and how they are named on the server.
struct RecordTable {
    const char *table;
    BundleColumns columns;  // as on the server, after run_uuid (and seq)
    bool numbered;          // a seq column numbers the rows in the order written (events, checkpoints)
    QList<QVariantList> rows;
};

BundleColumns withExtra(BundleColumns columns, const BundleColumns &extra)
{
    columns += extra;
    return columns;
}

QList<RecordTable> recordTables()
{
    return {
        {"run_params", {{"key", BundleColumn::Text, false}, {"value", BundleColumn::Text, true}}, false, {}},
        {"run_tags", {{"tag", BundleColumn::Text, false}}, false, {}},
        {"events", bundleEventColumns(), true, {}},
        {"stages", bundleStageColumns(), false, {}},
        {"checkpoints", withExtra(bundleCheckpointColumns(), {{"path", BundleColumn::Text, true}}), true, {}},
        {"evaluations", bundleEvaluationColumns(), false, {}},
        {"metric_summaries", teamMetricSummaryColumns(), false, {}},
    };
}

// The local order of each table's rows (the seq numbering of events and checkpoints follows it).
const char *localOrder(const QByteArray &table)
{
    if (table == "run_params") return "key";
    if (table == "run_tags") return "tag";
    if (table == "stages") return "idx";
    if (table == "evaluations") return "id";
    if (table == "metric_summaries") return "name";
    return "rowid";
}

Result<QList<QVariantList>> readRows(SqliteConnection &db, const QByteArray &sql, qint64 runId, int columns, const QString &what)
{
    SqliteStatement statement;
    if (Status prepared = statement.prepare(db, sql, what); !prepared.ok())
        return prepared.error();
    statement.bindInt(1, runId);
    QList<QVariantList> rows;
    for (;;) {
        Result<bool> next = statement.next(what);
        if (!next)
            return next.error();
        if (!next.value())
            return rows;
        QVariantList row;
        for (int i = 0; i < columns; ++i)
            row << statement.valueColumn(i);
        rows << row;
    }
}

void digestRow(QCryptographicHash &hash, const QVariantList &row)
{
    for (const QVariant &value : row) {
        hash.addData(value.isValid() ? QByteArrayView("v") : QByteArrayView("n"));
        const QByteArray text = pgText(value);
        hash.addData(QByteArray::number(text.size()) + ':' + text);
    }
    hash.addData(QByteArrayView("\n"));
}

// "($1, $2, ...), ($n+1, ...)" for `rows` rows of `columns` values, numbered from `first`.
QString placeholders(int rows, int columns, int first = 1)
{
    QStringList tuples;
    for (int r = 0; r < rows; ++r) {
        QStringList values;
        for (int c = 0; c < columns; ++c)
            values << QStringLiteral("$%1").arg(first + r * columns + c);
        tuples << QLatin1Char('(') + values.join(QStringLiteral(", ")) + QLatin1Char(')');
    }
    return tuples.join(QStringLiteral(", "));
}

class RunPusher {
public:
    RunPusher(SqliteConnection &local, SqliteConnection &marks, PgConnection &server, const QString &serverKey, qint64 batchRows,
              TeamPushReport &report)
        : m_local(local), m_marks(marks), m_server(server), m_serverKey(serverKey), m_batchRows(batchRows), m_report(report)
    {
    }

    Status push(qint64 runId)
    {
        m_runId = runId;
        if (Status marked = readMarks(); !marked.ok())
            return marked;
        if (m_truncateAfter >= 0) {
            if (Status truncated = truncateOnServer(); !truncated.ok())
                return truncated;
        }
        if (!m_current)
            return Status::success();  // a resume raced this pass: the next one starts over
        if (Status metrics = pushMetrics(); !metrics.ok())
            return metrics;
        if (!m_current)
            return Status::success();
        return pushRecords();
    }

    // Whether this pass committed anything new of the run on the server (rows, its record, a truncation), and the
    // payload of the one notification that says so (team_listener.h): its uuid and last metric step.
    bool changedOnServer() const { return m_changed; }
    Result<QString> notificationPayload()
    {
        if (m_lastStep < 0) {
            SqliteStatement last;
            const QString action = what(QStringLiteral("cannot read the last step"));
            if (Status prepared = last.prepare(m_local, "SELECT max(step) FROM metrics WHERE run_id = ?", action); !prepared.ok())
                return prepared.error();
            last.bindInt(1, m_runId);
            Result<bool> row = last.next(action);
            if (!row)
                return row.error();
            if (row.value() && !last.isNull(0))
                m_lastStep = last.intColumn(0);
            (void)last.next(action);
        }
        return teamNotificationPayload(m_uuid, m_lastStep);
    }

private:
    QString what(const QString &action) const { return QStringLiteral("%1 of run %2").arg(action).arg(m_runId); }

    Status readMarks()
    {
        const QString action = what(QStringLiteral("cannot read the team store marks"));
        SqliteStatement ensure;
        if (Status prepared = ensure.prepare(m_marks, "INSERT OR IGNORE INTO team_replication (server, run_id) VALUES (?, ?)", action); !prepared.ok())
            return prepared;
        ensure.bindText(1, m_serverKey);
        ensure.bindInt(2, m_runId);
        if (Status inserted = ensure.run(action); !inserted.ok())
            return inserted;
        SqliteStatement read;
        if (Status prepared = read.prepare(m_marks,
                                           "SELECT metrics_rowid, truncate_after, generation, records_digest, (SELECT uuid FROM runs WHERE id = ?2)"
                                           " FROM team_replication WHERE server = ?1 AND run_id = ?2",
                                           action);
            !prepared.ok())
            return prepared;
        read.bindText(1, m_serverKey);
        read.bindInt(2, m_runId);
        Result<bool> row = read.next(action);
        if (!row)
            return row.error();
        if (!row.value())
            return Error(action + QStringLiteral(": no mark after inserting one"));
        m_metricsRowId = read.intColumn(0);
        m_truncateAfter = read.isNull(1) ? -1 : read.intColumn(1);
        m_generation = read.intColumn(2);
        m_digest = read.textColumn(3);
        m_uuid = read.textColumn(4);
        m_current = true;
        (void)read.next(action);  // resets the statement
        return Status::success();
    }

    // Runs `sql` on the marks connection with (server, run, generation) as ?1..?3 and `value` as ?4; a changed
    // generation (a resume deleted rows meanwhile) leaves the marks alone and ends this run's pass.
    Status mark(const QByteArray &sql, const QVariant &value)
    {
        const QString action = what(QStringLiteral("cannot record the team store marks"));
        SqliteStatement update;
        if (Status prepared = update.prepare(m_marks, sql + " WHERE server = ?1 AND run_id = ?2 AND generation = ?3", action); !prepared.ok())
            return prepared;
        update.bindText(1, m_serverKey);
        update.bindInt(2, m_runId);
        update.bindInt(3, m_generation);
        if (!value.isValid())
            update.bindNull(4);
        else if (value.typeId() == QMetaType::LongLong)
            update.bindInt(4, value.toLongLong());
        else
            update.bindText(4, value.toString());
        if (Status done = update.run(action); !done.ok())
            return done;
        m_current = m_marks.changes() == 1;
        return Status::success();
    }

    Status inServerTransaction(const std::function<Status()> &work)
    {
        return m_server.inTransaction(what(QStringLiteral("cannot push")), work);
    }

    Status truncateOnServer()
    {
        Status deleted = inServerTransaction([&]() -> Status {
            const QVariantList params{m_uuid, m_truncateAfter};
            const QString action = what(QStringLiteral("cannot delete the rows after step %1").arg(m_truncateAfter));
            for (const char *sql : {"DELETE FROM trainyard.metrics WHERE run_uuid = $1 AND step > $2",
                                    "DELETE FROM trainyard.events WHERE run_uuid = $1 AND step > $2"})
                if (Result<PgResult> done = m_server.exec(QString::fromLatin1(sql), params, action); !done)
                    return done.error();
            return Status::success();
        });
        if (!deleted.ok())
            return deleted;
        ++m_report.truncations;
        m_changed = true;
        return mark("UPDATE team_replication SET truncate_after = ?4", QVariant());
    }

    Status pushMetrics()
    {
        const QString action = what(QStringLiteral("cannot read the metric rows"));
        SqliteStatement rows;
        if (Status prepared = rows.prepare(m_local, "SELECT rowid, name, step, epoch, time, value FROM metrics"
                                                    " WHERE run_id = ? AND rowid > ? ORDER BY rowid", action);
            !prepared.ok())
            return prepared;
        rows.bindInt(1, m_runId);
        rows.bindInt(2, m_metricsRowId);
        QByteArray batch;
        qint64 inBatch = 0;
        qint64 lastRowId = m_metricsRowId;
        QByteArray uuidField;
        appendCopyField(uuidField, m_uuid);
        for (;;) {
            Result<bool> next = rows.next(action);
            if (!next)
                return next.error();
            if (next.value()) {
                lastRowId = rows.intColumn(0);
                m_lastStep = std::max(m_lastStep, rows.intColumn(2));
                batch += uuidField;
                for (int column = 1; column <= 5; ++column) {
                    batch += '\t';
                    appendCopyField(batch, rows.valueColumn(column));
                }
                batch += '\n';
                ++inBatch;
            }
            if (inBatch > 0 && (!next.value() || inBatch >= m_batchRows)) {
                if (Status sent = sendMetricBatch(batch, inBatch, lastRowId); !sent.ok())
                    return sent;
                batch.clear();
                inBatch = 0;
                if (!m_current)
                    return Status::success();
            }
            if (!next.value())
                return Status::success();
        }
    }

    Status sendMetricBatch(const QByteArray &batch, qint64 count, qint64 lastRowId)
    {
        const QString action = what(QStringLiteral("cannot push metric rows"));
        qint64 inserted = 0;
        Status sent = inServerTransaction([&]() -> Status {
            if (Status staged = m_server.command(QStringLiteral("CREATE TEMP TABLE IF NOT EXISTS metrics_in"
                                                                " (LIKE trainyard.metrics) ON COMMIT DELETE ROWS"), action);
                !staged.ok())
                return staged;
            if (Status copied = m_server.copyIn(QStringLiteral("COPY metrics_in FROM STDIN"), batch, action); !copied.ok())
                return copied;
            Result<PgResult> insert = m_server.exec(QStringLiteral("INSERT INTO trainyard.metrics SELECT * FROM metrics_in ON CONFLICT DO NOTHING"),
                                                    {}, action);
            if (!insert)
                return insert.error();
            inserted = insert.value().affectedRows();
            return Status::success();
        });
        if (!sent.ok())
            return sent;
        m_report.metricRowsSent += count;
        m_report.metricRowsNew += inserted;
        m_changed = m_changed || inserted > 0;
        return mark("UPDATE team_replication SET metrics_rowid = ?4", lastRowId);
    }

    Status pushRecords()
    {
        const BundleColumns runColumns = withExtra(withExtra(bundleRunColumns(), teamRunExtraColumns()), teamRunKindColumns());
        const QString action = what(QStringLiteral("cannot read the records"));
        Result<QList<QVariantList>> run = readRows(m_local, QStringLiteral("SELECT %1 FROM runs WHERE id = ?").arg(bundleColumnList(runColumns)).toUtf8(),
                                                   m_runId, int(runColumns.size()), action);
        if (!run)
            return run.error();
        if (run.value().isEmpty())
            return Status::success();  // deleted meanwhile
        // The run it started from by uuid too: its id here names another run on the store (team_run_parents.h).
        QVariant &provenance = run.value().first()[bundleColumnIndex(runColumns, "provenance_json")];
        if (!provenance.isNull()) {
            Result<QString> withParent = provenanceWithParentUuid(m_local, provenance.toString());
            if (!withParent)
                return withParent.error();
            provenance = withParent.value();
        }
        QCryptographicHash hash(QCryptographicHash::Sha1);
        digestRow(hash, run.value().first());
        QList<RecordTable> tables = recordTables();
        for (RecordTable &table : tables) {
            const QByteArray sql = QStringLiteral("SELECT %1 FROM %2 WHERE run_id = ? ORDER BY %3")
                                       .arg(bundleColumnList(table.columns), QLatin1String(table.table), QLatin1String(localOrder(table.table)))
                                       .toUtf8();
            Result<QList<QVariantList>> rows = readRows(m_local, sql, m_runId, int(table.columns.size()), action);
            if (!rows)
                return rows.error();
            table.rows = rows.value();
            hash.addData(QByteArrayView(table.table));
            for (const QVariantList &row : table.rows)
                digestRow(hash, row);
        }
        hash.addData(QByteArrayView("evaluation_samples"));  // since schema step 3: every run's records go once more, with them
        const QString digest = QString::fromLatin1(hash.result().toHex());
        if (digest == m_digest)
            return Status::success();
        // A copy imported from a bundle (no process of this machine trained it: no pid) leaves the record of the
        // machine that trained it as the store has it: its folder and checkpoint paths are that machine's.
        if (run.value().first().at(bundleColumnIndex(runColumns, "pid")).isNull()) {
            Result<PgResult> held = m_server.exec(QStringLiteral("SELECT 1 FROM trainyard.runs WHERE uuid = $1"), {m_uuid},
                                                  what(QStringLiteral("cannot read the record")));
            if (!held)
                return held.error();
            if (held.value().rows() > 0)
                return mark("UPDATE team_replication SET records_digest = ?4", digest);
        }
        qint64 samplesSent = 0;
        Status sent = inServerTransaction([&]() -> Status {
            if (Status upserted = upsertRun(runColumns, run.value().first()); !upserted.ok())
                return upserted;
            // Before the evaluations are replaced: it compares theirs on the store with the local ones.
            Result<TeamSamplesPushReport> samples = pushEvaluationSamples(m_local, m_server, m_runId, m_uuid, m_batchRows);
            if (!samples)
                return samples.error();
            samplesSent = samples.value().samples;
            for (const RecordTable &table : tables)
                if (Status replaced = replaceTable(table); !replaced.ok())
                    return replaced;
            return Status::success();
        });
        if (!sent.ok())
            return sent;
        ++m_report.records;
        m_report.evaluationSamplesSent += samplesSent;
        m_changed = true;
        return mark("UPDATE team_replication SET records_digest = ?4", digest);
    }

    // An UPDATE first: an INSERT ... ON CONFLICT takes an id of the sequence even when it updates, and the store's
    // ids (what `runs show ID --team` and T7 name) would leap with every push.
    Status upsertRun(const BundleColumns &columns, const QVariantList &row)
    {
        QStringList updates, assignments;
        for (int i = 0; i < columns.size(); ++i) {
            updates << QStringLiteral("%1 = EXCLUDED.%1").arg(QLatin1String(columns[i].name));
            assignments << QStringLiteral("%1 = $%2").arg(QLatin1String(columns[i].name)).arg(i + 1);
        }
        const int uuid = bundleColumnIndex(columns, "uuid") + 1;
        Result<PgResult> updated = m_server.exec(QStringLiteral("UPDATE trainyard.runs SET %1, replicated_at = now() WHERE uuid = $%2 RETURNING id")
                                                     .arg(assignments.join(QStringLiteral(", ")))
                                                     .arg(uuid),
                                                 row, what(QStringLiteral("cannot push the record")));
        if (!updated)
            return updated.error();
        if (updated.value().rows() > 0)
            return Status::success();
        const QString sql = QStringLiteral("INSERT INTO trainyard.runs (%1) VALUES %2 ON CONFLICT (uuid) DO UPDATE SET %3, replicated_at = now()")
                                .arg(bundleColumnList(columns), placeholders(1, int(columns.size())), updates.join(QStringLiteral(", ")));
        Result<PgResult> done = m_server.exec(sql, row, what(QStringLiteral("cannot push the record")));
        return done ? Status::success() : Status(done.error());
    }

    Status replaceTable(const RecordTable &table)
    {
        const QString action = what(QStringLiteral("cannot push the %1").arg(QLatin1String(table.table)));
        const QString name = QStringLiteral("trainyard.") + QLatin1String(table.table);
        if (Result<PgResult> cleared = m_server.exec(QStringLiteral("DELETE FROM %1 WHERE run_uuid = $1").arg(name), {m_uuid}, action); !cleared)
            return cleared.error();
        const int width = int(table.columns.size()) + (table.numbered ? 2 : 1);
        const int perStatement = 60000 / width;  // under libpq's 65535 parameters
        const QString columns = QStringLiteral("run_uuid, ") + (table.numbered ? QStringLiteral("seq, ") : QString()) + bundleColumnList(table.columns);
        for (qsizetype first = 0; first < table.rows.size(); first += perStatement) {
            const int count = int(std::min<qsizetype>(perStatement, table.rows.size() - first));
            QVariantList params;
            for (int i = 0; i < count; ++i) {
                params << m_uuid;
                if (table.numbered)
                    params << QVariant(qint64(first + i));
                params += table.rows[first + i];
            }
            const QString sql = QStringLiteral("INSERT INTO %1 (%2) VALUES %3").arg(name, columns, placeholders(count, width));
            if (Result<PgResult> inserted = m_server.exec(sql, params, action); !inserted)
                return inserted.error();
        }
        return Status::success();
    }

    SqliteConnection &m_local;
    SqliteConnection &m_marks;
    PgConnection &m_server;
    const QString m_serverKey;
    const qint64 m_batchRows;
    TeamPushReport &m_report;

    qint64 m_runId = 0;
    QString m_uuid;
    qint64 m_metricsRowId = 0;
    qint64 m_truncateAfter = -1;
    qint64 m_generation = 0;
    QString m_digest;
    bool m_current = true;  // the marks' generation is still the one read
    bool m_changed = false;
    qint64 m_lastStep = -1;  // the highest step sent in this pass
};

Result<QList<qint64>> everyRun(SqliteConnection &db)
{
    const QString action = QStringLiteral("cannot list the runs");
    SqliteStatement list;
    if (Status prepared = list.prepare(db, "SELECT id FROM runs WHERE uuid IS NOT NULL ORDER BY id", action); !prepared.ok())
        return prepared.error();
    QList<qint64> ids;
    for (;;) {
        Result<bool> next = list.next(action);
        if (!next)
            return next.error();
        if (!next.value())
            return ids;
        ids << list.intColumn(0);
    }
}

} // namespace

Result<TeamPushReport> pushRunsToTeam(const QString &databasePath, PgConnection &server, const TeamPushOptions &options)
{
    SqliteConnection local, marks;
    if (Status opened = local.openReadOnly(databasePath); !opened.ok())
        return opened.error();
    if (Status opened = marks.open(databasePath); !opened.ok())
        return opened.error();
    const auto refused = [&](const Error &error) {
        if (!server.lastErrorWasPermission())
            return error;
        return Error(QStringLiteral("the role may not write to the team store %1 (a read-only role can list and show runs, not push): %2")
                         .arg(server.name(), error.message));
    };
    if (Status schema = prepareTeamSchemaForWriting(server); !schema.ok())
        return refused(schema.error());
    Result<QList<qint64>> runs = options.runIds.isEmpty() ? everyRun(local) : Result<QList<qint64>>(options.runIds);
    if (!runs)
        return runs.error();
    TeamPushReport report;
    for (qint64 runId : runs.value()) {
        RunPusher pusher(local, marks, server, server.name(), std::max<qint64>(1, options.batchRows), report);
        if (Status pushed = pusher.push(runId); !pushed.ok())
            return refused(pushed.error());
        ++report.runs;
        if (!pusher.changedOnServer())
            continue;
        // After the commits, outside any transaction: delivered at once, one per run and pass.
        Result<QString> payload = pusher.notificationPayload();
        if (!payload)
            return payload.error();
        if (Result<PgResult> sent = server.exec(QStringLiteral("SELECT pg_notify($1, $2)"), {QString::fromLatin1(kTeamRunsChannel), payload.value()},
                                                QStringLiteral("cannot notify the team of run %1").arg(runId));
            !sent)
            return sent.error();
        ++report.notifications;
    }
    return report;
}

} // namespace ty
