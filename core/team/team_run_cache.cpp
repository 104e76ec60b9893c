#include "team_run_cache.h"

#include "pg_connection.h"
#include "team_evaluation_samples.h"
#include "run_database.h"
#include "team_mirror_tables.h"
#include "team_schema.h"

#include <QHash>
#include <QStringList>

namespace ty {

namespace {

struct HeldRecord {
    QString replicatedAt;
    QString status;
};

// What the cache holds of each run: the store's replicated_at of the record it copied, and its status.
Result<QHash<QString, HeldRecord>> heldRecords(SqliteConnection &db)
{
    const QString what = QStringLiteral("cannot read the team cache");
    SqliteStatement select;
    if (Status prepared = select.prepare(db, "SELECT c.uuid, c.replicated_at, r.status FROM team_cache_runs c JOIN runs r ON r.id = c.id", what);
        !prepared.ok())
        return prepared.error();
    QHash<QString, HeldRecord> held;
    for (;;) {
        Result<bool> next = select.next(what);
        if (!next)
            return next.error();
        if (!next.value())
            return held;
        held.insert(select.textColumn(0), {select.textColumn(1), select.textColumn(2)});
    }
}

// Per metric name of run `id`, the last step the cache holds.
Result<QHash<QString, qint64>> lastSteps(SqliteConnection &db, qint64 id)
{
    const QString what = QStringLiteral("cannot read the team cache's metrics");
    SqliteStatement select;
    if (Status prepared = select.prepare(db, "SELECT name, max(step) FROM metrics WHERE run_id = ? GROUP BY name", what); !prepared.ok())
        return prepared.error();
    select.bindInt(1, id);
    QHash<QString, qint64> last;
    for (;;) {
        Result<bool> next = select.next(what);
        if (!next)
            return next.error();
        if (!next.value())
            return last;
        last.insert(select.textColumn(0), select.intColumn(1));
    }
}

Status inTransaction(SqliteConnection &db, const std::function<Status()> &work)
{
    const QString what = QStringLiteral("cannot write the team cache");
    if (Status begun = db.exec("BEGIN IMMEDIATE", what); !begun.ok())
        return begun;
    Status done = work();
    if (!done.ok()) {
        (void)db.exec("ROLLBACK", what);
        return done;
    }
    return db.exec("COMMIT", what);
}

} // namespace

Status TeamRunCache::open(const QString &path)
{
    {
        Result<std::unique_ptr<RunDatabase>> created = RunDatabase::open(path);  // the schema, at this build's version
        if (!created)
            return created.error();
    }
    m_path = path;
    if (Status opened = m_db.open(path); !opened.ok())
        return opened;
    // The "Both" view reads the copy's runs under their negated ids and its evaluations under ids shifted below
    // every local one (RunDatabase::attachTeamCopy): indexes on those expressions.
    const char *const statements[] = {
        "CREATE TABLE IF NOT EXISTS team_cache_runs (uuid TEXT PRIMARY KEY, id INTEGER NOT NULL, replicated_at TEXT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS both_runs ON runs(-id)",
        "CREATE INDEX IF NOT EXISTS both_run_params ON run_params(-run_id)",
        "CREATE INDEX IF NOT EXISTS both_metrics ON metrics(-run_id, name, step)",
        "CREATE INDEX IF NOT EXISTS both_events ON events(-run_id, step)",
        "CREATE INDEX IF NOT EXISTS both_checkpoints ON checkpoints(-run_id, step)",
        "CREATE INDEX IF NOT EXISTS both_run_tags ON run_tags(-run_id)",
        "CREATE INDEX IF NOT EXISTS both_metric_summaries ON metric_summaries(-run_id, name)",
        "CREATE INDEX IF NOT EXISTS both_evaluations ON evaluations(-run_id)",
        "CREATE INDEX IF NOT EXISTS both_evaluation_ids ON evaluations(id - 1125899906842624)",
        "CREATE INDEX IF NOT EXISTS both_evaluation_samples ON evaluation_samples(evaluation_id - 1125899906842624, sample_index)",
        "CREATE INDEX IF NOT EXISTS both_stages ON stages(-run_id)",
    };
    for (const char *statement : statements)
        if (Status done = m_db.exec(statement, QStringLiteral("cannot prepare the team cache")); !done.ok())
            return done;
    return Status::success();
}

Result<TeamCacheSyncReport> TeamRunCache::sync(PgConnection &server, const QSet<QString> &notified)
{
    const Result<int> version = checkTeamSchemaForReading(server);
    if (!version)
        return version.error();
    m_storeVersion = version.value();
    return syncListed(server, notified, false);
}

Result<TeamCacheSyncReport> TeamRunCache::syncRuns(PgConnection &server, const QSet<QString> &uuids)
{
    if (uuids.isEmpty())
        return TeamCacheSyncReport{};
    if (m_storeVersion < kTeamSchemaVersion) {  // not synced yet, or a push may have upgraded the store since
        const Result<int> version = checkTeamSchemaForReading(server);
        if (!version)
            return version.error();
        m_storeVersion = version.value();
    }
    return syncListed(server, uuids, true);
}

Result<TeamCacheSyncReport> TeamRunCache::syncListed(PgConnection &server, const QSet<QString> &notified, bool onlyNotified)
{
    const QString listing = QStringLiteral("SELECT id, uuid, replicated_at::text, %1 FROM trainyard.runs r%2 ORDER BY id")
                                .arg(storeRunStatusSql(), onlyNotified ? QStringLiteral(" WHERE uuid = ANY($1::text[])") : QString());
    const QVariantList params = onlyNotified ? QVariantList{pgTextArray(QStringList(notified.cbegin(), notified.cend()))} : QVariantList{};
    Result<PgResult> runs = server.exec(listing, params, QStringLiteral("cannot list the team store's runs"));
    if (!runs)
        return runs.error();
    Result<QHash<QString, HeldRecord>> held = heldRecords(m_db);
    if (!held)
        return held.error();
    TeamCacheSyncReport report;
    const PgResult &list = runs.value();
    report.runs = list.rows();
    for (int row = 0; row < list.rows(); ++row) {
        const qint64 id = list.integer(row, 0);
        const QString uuid = list.text(row, 1);
        const QString replicatedAt = list.text(row, 2);
        const QString status = list.text(row, 3);
        const auto was = held.value().constFind(uuid);
        // A status that differs from the store's: the run moved (a resume may have cut rows after its checkpoint),
        // or this copy's reader marked it interrupted by its own clock; either way the store's record is copied again.
        const bool statusMoved = was != held.value().constEnd() && was->status != status;
        const bool changed = was == held.value().constEnd() || was->replicatedAt != replicatedAt || statusMoved;
        if (changed) {
            if (Status copied = copyRecord(server, id, uuid, replicatedAt); !copied.ok())
                return copied.error();
            ++report.records;
        }
        const bool live = status == QLatin1String("running") || status == QLatin1String("queued");
        if (changed || live || notified.contains(uuid)) {
            Result<qint64> rows = copyNewMetrics(server, id, uuid, statusMoved);
            if (!rows)
                return rows.error();
            report.metricRows += rows.value();
        }
    }
    return report;
}

Status TeamRunCache::copyRecord(PgConnection &server, qint64 id, const QString &uuid, const QString &replicatedAt)
{
    return inTransaction(m_db, [&]() -> Status {
        const QList<MirroredTable> children = mirroredListTables() + mirroredDetailTables();
        for (const MirroredTable &table : children) {
            SqliteStatement clear;
            const QString what = QStringLiteral("cannot write the team cache's %1").arg(table.localTable);
            if (Status prepared = clear.prepare(m_db, QStringLiteral("DELETE FROM %1 WHERE run_id = ?").arg(table.localTable).toUtf8(), what); !prepared.ok())
                return prepared;
            clear.bindInt(1, id);
            if (Status done = clear.run(what); !done.ok())
                return done;
        }
        const QString filter = QStringLiteral("r.id = $1");
        for (const MirroredTable &table : QList<MirroredTable>{mirroredRunsTable(true, m_storeVersion)} + children)
            if (Result<qint64> copied = copyMirroredRows(server, m_db, table, filter, {id}); !copied)
                return copied.error();
        // Their evaluations' samples (the old ones went with the evaluations: ON DELETE CASCADE).
        if (Result<qint64> samples = copyEvaluationSamples(server, m_db, id, uuid); !samples)
            return samples.error();
        SqliteStatement mark;
        const QString what = QStringLiteral("cannot write the team cache");
        if (Status prepared = mark.prepare(m_db, "INSERT OR REPLACE INTO team_cache_runs (uuid, id, replicated_at) VALUES (?, ?, ?)", what); !prepared.ok())
            return prepared;
        mark.bindText(1, uuid);
        mark.bindInt(2, id);
        mark.bindText(3, replicatedAt);
        return mark.run(what);
    });
}

Result<qint64> TeamRunCache::copyNewMetrics(PgConnection &server, qint64 id, const QString &uuid, bool checkTruncation)
{
    Result<QHash<QString, qint64>> last = lastSteps(m_db, id);
    if (!last)
        return last.error();
    QHash<QString, qint64> marks = last.value();
    qint64 copiedRows = 0;
    Status done = inTransaction(m_db, [&]() -> Status {
        if (checkTruncation && !marks.isEmpty()) {
            Result<PgResult> onStore = server.exec(QStringLiteral("SELECT name, max(step) FROM trainyard.metrics WHERE run_uuid = $1 GROUP BY name"),
                                                   {uuid}, QStringLiteral("cannot read the team store's metrics"));
            if (!onStore)
                return onStore.error();
            QHash<QString, qint64> storeLast;
            for (int row = 0; row < onStore.value().rows(); ++row)
                storeLast.insert(onStore.value().text(row, 0), onStore.value().integer(row, 1));
            for (auto it = marks.begin(); it != marks.end(); ++it) {
                const qint64 keep = storeLast.value(it.key(), -1);
                if (keep >= it.value())
                    continue;
                SqliteStatement drop;
                const QString what = QStringLiteral("cannot write the team cache's metrics");
                if (Status prepared = drop.prepare(m_db, "DELETE FROM metrics WHERE run_id = ? AND name = ? AND step > ?", what); !prepared.ok())
                    return prepared;
                drop.bindInt(1, id);
                drop.bindText(2, it.key());
                drop.bindInt(3, keep);
                if (Status dropped = drop.run(what); !dropped.ok())
                    return dropped;
                it.value() = keep;
            }
        }
        QStringList names, steps;
        for (auto it = marks.cbegin(); it != marks.cend(); ++it) {
            names << it.key();
            steps << QString::number(it.value());
        }
        const QString filter = QStringLiteral("r.id = $1 AND t.step > coalesce((SELECT k.last FROM unnest($2::text[], $3::bigint[]) AS k(name, last)"
                                              " WHERE k.name = t.name), -9223372036854775807)");
        Result<qint64> copied = copyMirroredRows(server, m_db, mirroredMetricsTable(), filter,
                                                 {id, pgTextArray(names), QStringLiteral("{%1}").arg(steps.join(QLatin1Char(',')))});
        if (!copied)
            return copied.error();
        copiedRows = copied.value();
        return Status::success();
    });
    if (!done.ok())
        return done.error();
    return copiedRows;
}

} // namespace ty
