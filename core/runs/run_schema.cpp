#include "run_schema.h"

#include "run_sqlite.h"

#include <QSqlQuery>

namespace ty {

namespace {

RunSchemaStep version1()
{
    RunSchemaStep step;
    step.toVersion = 1;
    step.description = QStringLiteral("runs, parameters, metrics, events, checkpoints and tags");
    step.statements = {
        QStringLiteral("CREATE TABLE runs ("
                       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                       " name TEXT,"
                       " status TEXT NOT NULL,"
                       " status_message TEXT,"
                       " error_node TEXT,"
                       " preset_json TEXT NOT NULL,"
                       " preset_hash TEXT,"
                       " created_at TEXT,"
                       " started_at TEXT,"
                       " ended_at TEXT,"
                       " heartbeat_at TEXT,"
                       " app_version TEXT,"
                       " torch_version TEXT,"
                       " qt_version TEXT,"
                       " device TEXT,"
                       " host TEXT,"
                       " pid INTEGER,"
                       " seed INTEGER,"
                       " provenance_json TEXT,"
                       " folder TEXT,"
                       " notes TEXT)"),
        QStringLiteral("CREATE INDEX runs_by_status ON runs(status)"),
        QStringLiteral("CREATE TABLE run_params ("
                       " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
                       " key TEXT NOT NULL,"
                       " value TEXT,"
                       " PRIMARY KEY (run_id, key))"),
        QStringLiteral("CREATE TABLE metrics ("
                       " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
                       " name TEXT NOT NULL,"
                       " step INTEGER NOT NULL,"
                       " epoch INTEGER,"
                       " time REAL,"
                       " value REAL)"),
        QStringLiteral("CREATE INDEX metrics_by_run_name_step ON metrics(run_id, name, step)"),
        QStringLiteral("CREATE TABLE events ("
                       " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
                       " step INTEGER,"
                       " time REAL,"
                       " kind TEXT,"
                       " message TEXT)"),
        QStringLiteral("CREATE INDEX events_by_run_step ON events(run_id, step)"),
        QStringLiteral("CREATE TABLE checkpoints ("
                       " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
                       " step INTEGER,"
                       " epoch INTEGER,"
                       " path TEXT,"
                       " created_at TEXT)"),
        QStringLiteral("CREATE INDEX checkpoints_by_run_step ON checkpoints(run_id, step)"),
        QStringLiteral("CREATE TABLE run_tags ("
                       " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
                       " tag TEXT NOT NULL,"
                       " PRIMARY KEY (run_id, tag))"),
    };
    return step;
}

// Per run and metric: count, minimum, maximum and last value, kept by RunWriter, so the run browser needs no
// scan of the metric rows. Filled here from the rows already in the file.
RunSchemaStep version2()
{
    RunSchemaStep step;
    step.toVersion = 2;
    step.description = QStringLiteral("metric summaries");
    step.statements = {
        QStringLiteral("CREATE TABLE metric_summaries ("
                       " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
                       " name TEXT NOT NULL,"
                       " count INTEGER NOT NULL,"
                       " min_value REAL,"
                       " max_value REAL,"
                       " last_step INTEGER,"
                       " last_value REAL,"
                       " PRIMARY KEY (run_id, name)) WITHOUT ROWID"),
        QStringLiteral("INSERT INTO metric_summaries (run_id, name, count, min_value, max_value, last_step, last_value)"
                       " SELECT run_id, name, count(*), min(value), max(value), max(step), NULL"
                       " FROM metrics GROUP BY run_id, name"),
        QStringLiteral("UPDATE metric_summaries SET last_value = (SELECT m.value FROM metrics m"
                       " WHERE m.run_id = metric_summaries.run_id AND m.name = metric_summaries.name"
                       " ORDER BY m.step DESC, m.rowid DESC LIMIT 1)"),
    };
    return step;
}

// The sha256 of each checkpoint file as written, so that resume loads only the file this run wrote.
// Checkpoints recorded before have none (they are LibTorch archives, which are no longer loaded).
RunSchemaStep version3()
{
    RunSchemaStep step;
    step.toVersion = 3;
    step.description = QStringLiteral("checkpoint checksums");
    step.statements = {QStringLiteral("ALTER TABLE checkpoints ADD COLUMN sha256 TEXT")};
    return step;
}

// Evaluations of a run's weights on a split (trainyard-cli evaluate, and every finished run on its test split):
// the report as JSON, and every sample's prediction so the app can list the samples of a confusion cell.
RunSchemaStep version4()
{
    RunSchemaStep step;
    step.toVersion = 4;
    step.description = QStringLiteral("evaluations");
    step.statements = {
        QStringLiteral("CREATE TABLE evaluations ("
                       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                       " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
                       " split TEXT NOT NULL,"
                       " checkpoint_step INTEGER NOT NULL,"
                       " created_at TEXT,"
                       " task TEXT NOT NULL,"
                       " sample_count INTEGER NOT NULL,"
                       " accuracy REAL,"
                       " summary_json TEXT NOT NULL,"
                       " UNIQUE (run_id, split, checkpoint_step))"),
        QStringLiteral("CREATE TABLE evaluation_samples ("
                       " evaluation_id INTEGER NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,"
                       " sample_index INTEGER NOT NULL,"
                       " label REAL,"
                       " predicted REAL,"
                       " confidence REAL,"
                       " PRIMARY KEY (evaluation_id, sample_index)) WITHOUT ROWID"),
    };
    return step;
}

// Which checkpoints hold the best weights so far by the monitored metric (kind "best"; NULL for the others).
RunSchemaStep version5()
{
    RunSchemaStep step;
    step.toVersion = 5;
    step.description = QStringLiteral("best checkpoints");
    step.statements = {QStringLiteral("ALTER TABLE checkpoints ADD COLUMN kind TEXT")};
    return step;
}

// Training stages of a run: where each began and ended on the step axis, its length and frozen nodes.
RunSchemaStep version6()
{
    RunSchemaStep step;
    step.toVersion = 6;
    step.description = QStringLiteral("training stages");
    step.statements = {QStringLiteral("CREATE TABLE stages ("
                                      " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
                                      " idx INTEGER NOT NULL,"
                                      " name TEXT NOT NULL,"
                                      " start_step INTEGER NOT NULL,"
                                      " end_step INTEGER,"
                                      " start_epoch INTEGER,"
                                      " epochs INTEGER,"
                                      " frozen_json TEXT,"
                                      " PRIMARY KEY (run_id, idx)) WITHOUT ROWID")};
    return step;
}

// Sweeps (trainyard-cli sweep): the search space, the base preset and every trial's overrides, fixed when the
// sweep starts; each trial's run points at its sweep, at most one run per trial. The run queue: processes waiting
// for a free slot under the database's concurrency limit (settings key max_running).
RunSchemaStep version7()
{
    RunSchemaStep step;
    step.toVersion = 7;
    step.description = QStringLiteral("sweeps and the run queue");
    step.statements = {QStringLiteral("CREATE TABLE sweeps ("
                                      " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                                      " name TEXT,"
                                      " status TEXT NOT NULL,"
                                      " spec_json TEXT NOT NULL,"
                                      " preset_json TEXT NOT NULL,"
                                      " preset_file TEXT,"
                                      " trials_json TEXT NOT NULL,"
                                      " metric TEXT NOT NULL,"
                                      " maximize INTEGER NOT NULL,"
                                      " best_run INTEGER,"
                                      " created_at TEXT,"
                                      " ended_at TEXT,"
                                      " host TEXT,"
                                      " pid INTEGER)"),
                       QStringLiteral("ALTER TABLE runs ADD COLUMN sweep_id INTEGER"),
                       QStringLiteral("ALTER TABLE runs ADD COLUMN sweep_trial INTEGER"),
                       QStringLiteral("CREATE UNIQUE INDEX runs_by_sweep_trial ON runs(sweep_id, sweep_trial) WHERE sweep_id IS NOT NULL"),
                       QStringLiteral("CREATE TABLE queue ("
                                      " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                                      " name TEXT,"
                                      " kind TEXT NOT NULL,"
                                      " run_id INTEGER,"
                                      " sweep_id INTEGER,"
                                      " sweep_trial INTEGER,"
                                      " position REAL NOT NULL,"
                                      " state TEXT NOT NULL,"
                                      " start_now INTEGER NOT NULL DEFAULT 0,"
                                      " host TEXT,"
                                      " pid INTEGER,"
                                      " created_at TEXT,"
                                      " heartbeat_at TEXT)"),
                       QStringLiteral("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT)")};
    return step;
}

// Global identity: every run and sweep gets a random 128-bit uuid (version 4 form), so that runs from other
// databases (bundles, the team store) can be merged without their local ids clashing. Existing rows get theirs
// here.
RunSchemaStep version8()
{
    const QString uuid = QStringLiteral("lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))");
    RunSchemaStep step;
    step.toVersion = 8;
    step.description = QStringLiteral("uuids of runs and sweeps");
    step.statements = {QStringLiteral("ALTER TABLE runs ADD COLUMN uuid TEXT"),
                       QStringLiteral("UPDATE runs SET uuid = %1").arg(uuid),
                       QStringLiteral("CREATE UNIQUE INDEX runs_by_uuid ON runs(uuid)"),
                       QStringLiteral("ALTER TABLE sweeps ADD COLUMN uuid TEXT"),
                       QStringLiteral("UPDATE sweeps SET uuid = %1").arg(uuid),
                       QStringLiteral("CREATE UNIQUE INDEX sweeps_by_uuid ON sweeps(uuid)")};
    return step;
}

// The team store's replicator (core/team, docs/team.md): per server (its connection string without password) and
// run, the highest metric rowid sent, the step after which a resume deleted rows that the server must delete too,
// a generation that every such deletion moves (so a pass that raced one does not record its progress), and a
// digest of the run's other records as last sent.
RunSchemaStep version9()
{
    RunSchemaStep step;
    step.toVersion = 9;
    step.description = QStringLiteral("team store replication marks");
    step.statements = {QStringLiteral("CREATE TABLE team_replication ("
                                      " server TEXT NOT NULL,"
                                      " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
                                      " metrics_rowid INTEGER NOT NULL DEFAULT 0,"
                                      " truncate_after INTEGER,"
                                      " generation INTEGER NOT NULL DEFAULT 0,"
                                      " records_digest TEXT,"
                                      " PRIMARY KEY (server, run_id)) WITHOUT ROWID")};
    return step;
}

// What a run is: "train" (every run recorded before) or "lrfind" (a learning-rate range test, trainyard-cli
// lrfind), and what such a run found (its suggestions as JSON; NULL for training runs).
RunSchemaStep version10()
{
    RunSchemaStep step;
    step.toVersion = 10;
    step.description = QStringLiteral("run kinds and results");
    step.statements = {QStringLiteral("ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'train'"),
                       QStringLiteral("ALTER TABLE runs ADD COLUMN result_json TEXT")};
    return step;
}

} // namespace

const QList<RunSchemaStep> &runSchemaSteps()
{
    static const QList<RunSchemaStep> steps = {version1(), version2(), version3(), version4(), version5(), version6(), version7(), version8(), version9(), version10()};
    return steps;
}

QString newerRunSchemaMessage(const QString &path, int version)
{
    return QStringLiteral("%1 was written by a newer Trainyard (schema version %2; this build reads up to %3)")
        .arg(path)
        .arg(version)
        .arg(kRunSchemaVersion);
}

Status migrateRunSchema(QSqlDatabase &db, const QString &path)
{
    Result<int> version = readUserVersion(db, path);
    if (!version.ok())
        return version.error();
    if (version.value() > kRunSchemaVersion)
        return Error(newerRunSchemaMessage(path, version.value()));
    if (version.value() == kRunSchemaVersion)
        return Status::success();

    RunWriteTransaction transaction(db, path);
    if (Status begun = transaction.begin(); !begun.ok())
        return begun;
    // Another process may have migrated between the first read and taking the write lock.
    version = readUserVersion(db, path);
    if (!version.ok())
        return version.error();
    if (version.value() > kRunSchemaVersion)
        return Error(newerRunSchemaMessage(path, version.value()));

    for (const RunSchemaStep &step : runSchemaSteps()) {
        if (step.toVersion <= version.value())
            continue;
        for (const QString &statement : step.statements) {
            QSqlQuery query(db);
            if (!query.exec(statement)) {
                return runDbError(QStringLiteral("cannot migrate to schema version %1 (%2)")
                                      .arg(step.toVersion)
                                      .arg(step.description),
                                  path, query.lastError());
            }
        }
    }
    if (Status set = execRunSql(db, QStringLiteral("PRAGMA user_version=%1").arg(kRunSchemaVersion), path); !set.ok())
        return set;
    return transaction.commit();
}

} // namespace ty
