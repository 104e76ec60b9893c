#include "team_schema.h"

#include "pg_connection.h"

#include <QStringList>

namespace ty {

namespace {

// Any constant: the key of the advisory lock that serialises creating the schema.
constexpr qint64 kSchemaLockKey = 0x7472616979617264;  // "traiyard"

QString sqlType(const BundleColumn &column)
{
    switch (column.kind) {
    case BundleColumn::Integer: return QStringLiteral("bigint");
    case BundleColumn::Real: return QStringLiteral("double precision");
    default: return QStringLiteral("text");  // JSON stays text, byte for byte as written locally
    }
}

QString columnDefinitions(const BundleColumns &columns)
{
    QStringList definitions;
    for (const BundleColumn &column : columns)
        definitions << QStringLiteral("%1 %2%3").arg(QLatin1String(column.name), sqlType(column),
                                                     column.nullable ? QString() : QStringLiteral(" NOT NULL"));
    return definitions.join(QStringLiteral(", "));
}

// One step of the schema: what moves a store from version - 1 to version.
struct SchemaStep {
    int version;
    const char *name;
    QStringList statements;
};

QStringList runStatements()
{
    return {
        QStringLiteral("CREATE TABLE trainyard.runs (id bigserial PRIMARY KEY, %1, %2, replicated_at timestamptz NOT NULL DEFAULT now(),"
                       " UNIQUE (uuid))")
            .arg(columnDefinitions(bundleRunColumns()), columnDefinitions(teamRunExtraColumns())),
        QStringLiteral("CREATE TABLE trainyard.run_params (run_uuid text NOT NULL, key text NOT NULL, value text, PRIMARY KEY (run_uuid, key))"),
        QStringLiteral("CREATE TABLE trainyard.run_tags (run_uuid text NOT NULL, tag text NOT NULL, PRIMARY KEY (run_uuid, tag))"),
        // No foreign key to runs: a batch of metric rows may arrive before its run's record (docs/team.md).
        QStringLiteral("CREATE TABLE trainyard.metrics (run_uuid text NOT NULL, %1, PRIMARY KEY (run_uuid, name, step))")
            .arg(columnDefinitions(teamMetricColumns())),
        QStringLiteral("CREATE TABLE trainyard.metric_summaries (run_uuid text NOT NULL, %1, PRIMARY KEY (run_uuid, name))")
            .arg(columnDefinitions(teamMetricSummaryColumns())),
        QStringLiteral("CREATE TABLE trainyard.events (run_uuid text NOT NULL, seq integer NOT NULL, %1, PRIMARY KEY (run_uuid, seq))")
            .arg(columnDefinitions(bundleEventColumns())),
        QStringLiteral("CREATE TABLE trainyard.stages (run_uuid text NOT NULL, %1, PRIMARY KEY (run_uuid, idx))")
            .arg(columnDefinitions(bundleStageColumns())),
        QStringLiteral("CREATE TABLE trainyard.checkpoints (run_uuid text NOT NULL, seq integer NOT NULL, %1, path text,"
                       " PRIMARY KEY (run_uuid, seq))")
            .arg(columnDefinitions(bundleCheckpointColumns())),
        QStringLiteral("CREATE TABLE trainyard.evaluations (run_uuid text NOT NULL, %1, PRIMARY KEY (run_uuid, split, checkpoint_step))")
            .arg(columnDefinitions(bundleEvaluationColumns())),
    };
}

// Sweeps over many machines (docs/team.md#sweeps-over-many-machines): the sweep as its creator recorded it, and
// one row per trial that workers claim (FOR UPDATE SKIP LOCKED), hold with a lease they renew, and end with the
// status and best value of the run that trained it.
QStringList teamSweepStatements()
{
    return {
        QStringLiteral("CREATE TABLE trainyard.sweeps (id bigserial PRIMARY KEY, uuid text NOT NULL UNIQUE, name text, status text NOT NULL,"
                       " spec_json text NOT NULL, preset_json text NOT NULL, preset_file text, trials_json text NOT NULL,"
                       " metric text NOT NULL, maximize boolean NOT NULL, host text, created_at timestamptz NOT NULL DEFAULT now(),"
                       " ended_at timestamptz)"),
        QStringLiteral("CREATE TABLE trainyard.sweep_trials (sweep_id bigint NOT NULL REFERENCES trainyard.sweeps (id) ON DELETE CASCADE,"
                       " trial integer NOT NULL, status text NOT NULL DEFAULT 'queued', worker text, lease_until timestamptz,"
                       " claims integer NOT NULL DEFAULT 0, run_uuid text, value double precision, message text,"
                       " claimed_at timestamptz, ended_at timestamptz, PRIMARY KEY (sweep_id, trial))"),
    };
}

// Per-sample evaluation predictions (team_evaluation_samples.h), by the evaluation's key on the store.
QStringList evaluationSampleStatements()
{
    return {QStringLiteral("CREATE TABLE trainyard.evaluation_samples (run_uuid text NOT NULL, split text NOT NULL, checkpoint_step bigint NOT NULL,"
                           " sample_index bigint NOT NULL, label double precision, predicted double precision, confidence double precision,"
                           " PRIMARY KEY (run_uuid, split, checkpoint_step, sample_index))")};
}

// A run's kind and result (teamRunKindColumns()); runs pushed before have none and read as training runs.
QStringList runKindStatements()
{
    return {QStringLiteral("ALTER TABLE trainyard.runs ADD COLUMN kind text, ADD COLUMN result_json text")};
}

QList<SchemaStep> schemaSteps()
{
    return {{1, "runs", runStatements()},
            {2, "team sweeps", teamSweepStatements()},
            {3, "evaluation samples", evaluationSampleStatements()},
            {kTeamSchemaRunKinds, "run kinds", runKindStatements()}};
}

// The store's schema version, 0 when it has none.
Result<int> storedVersion(PgConnection &server)
{
    Result<PgResult> exists = server.exec(QStringLiteral("SELECT to_regclass('trainyard.team_schema') IS NOT NULL"), {},
                                          QStringLiteral("cannot read the schema version"));
    if (!exists)
        return exists.error();
    if (exists.value().text(0, 0) != QLatin1String("t"))
        return 0;
    Result<PgResult> version = server.exec(QStringLiteral("SELECT max(version) FROM trainyard.team_schema"), {},
                                           QStringLiteral("cannot read the schema version"));
    if (!version)
        return version.error();
    return version.value().isNull(0, 0) ? 0 : int(version.value().integer(0, 0));
}

Status refuseNewer(PgConnection &server, int version)
{
    if (version > kTeamSchemaVersion)
        return Error(QStringLiteral("the team store %1 was written by a newer Trainyard (schema version %2; this build reads up to %3)")
                         .arg(server.name()).arg(version).arg(kTeamSchemaVersion));
    return Status::success();
}

} // namespace

const BundleColumns &teamRunExtraColumns()
{
    static const BundleColumns columns = {{"pid", BundleColumn::Integer, true}, {"folder", BundleColumn::Text, true}};
    return columns;
}

const BundleColumns &teamRunKindColumns()
{
    static const BundleColumns columns = {{"kind", BundleColumn::Text, true}, {"result_json", BundleColumn::Text, true}};
    return columns;
}

const BundleColumns &teamMetricColumns()
{
    static const BundleColumns columns = {
        {"name", BundleColumn::Text, false}, {"step", BundleColumn::Integer, false}, {"epoch", BundleColumn::Integer, true},
        {"time", BundleColumn::Real, true},  {"value", BundleColumn::Real, true},
    };
    return columns;
}

const BundleColumns &teamMetricSummaryColumns()
{
    static const BundleColumns columns = {
        {"name", BundleColumn::Text, false},      {"count", BundleColumn::Integer, false},
        {"min_value", BundleColumn::Real, true},  {"max_value", BundleColumn::Real, true},
        {"last_step", BundleColumn::Integer, true}, {"last_value", BundleColumn::Real, true},
    };
    return columns;
}

Status prepareTeamSchemaForWriting(PgConnection &server)
{
    Result<int> version = storedVersion(server);
    if (!version)
        return version.error();
    if (Status newer = refuseNewer(server, version.value()); !newer.ok())
        return newer;
    if (version.value() == kTeamSchemaVersion)
        return Status::success();
    const QString what = QStringLiteral("cannot create the Trainyard schema");
    if (Status begun = server.command(QStringLiteral("BEGIN"), what); !begun.ok())
        return begun;
    auto fail = [&](const Error &error) -> Status {
        (void)server.command(QStringLiteral("ROLLBACK"), what);
        return error;
    };
    if (Result<PgResult> locked = server.exec(QStringLiteral("SELECT pg_advisory_xact_lock($1)"), {kSchemaLockKey}, what); !locked)
        return fail(locked.error());
    if (Status schema = server.command(QStringLiteral("CREATE SCHEMA IF NOT EXISTS trainyard"), what); !schema.ok())
        return fail(schema.error());
    if (Status table = server.command(QStringLiteral("CREATE TABLE IF NOT EXISTS trainyard.team_schema (version integer NOT NULL)"), what); !table.ok())
        return fail(table.error());
    version = storedVersion(server);  // another machine may have created it meanwhile
    if (!version)
        return fail(version.error());
    // Each step the store lacks, in order, with its version stamped in the same transaction.
    for (const SchemaStep &step : schemaSteps()) {
        if (step.version <= version.value())
            continue;
        const QString stepWhat = QStringLiteral("%1 (step %2, %3)").arg(what).arg(step.version).arg(QLatin1String(step.name));
        for (const QString &statement : step.statements)
            if (Status created = server.command(statement, stepWhat); !created.ok())
                return fail(created.error());
        if (Status stamped = server.command(QStringLiteral("INSERT INTO trainyard.team_schema VALUES (%1)").arg(step.version), stepWhat); !stamped.ok())
            return fail(stamped.error());
    }
    return server.command(QStringLiteral("COMMIT"), what);
}

Result<int> checkTeamSchemaForReading(PgConnection &server)
{
    Result<int> version = storedVersion(server);
    if (!version)
        return version.error();
    if (version.value() == 0)
        return Error(QStringLiteral("the team store %1 holds no Trainyard runs yet (nothing was pushed to it)").arg(server.name()));
    if (Status newer = refuseNewer(server, version.value()); !newer.ok())
        return newer.error();
    return version;
}

} // namespace ty
