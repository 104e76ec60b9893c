#pragma once
// The run database: the shared SQLite record of every training run (see docs/run-database.md).
//
// Threads and ownership: a RunDatabase owns ONE QSQLITE connection and must be used only from the thread that
// called open() (Qt SQL connections are thread-bound). Open one RunDatabase per thread if several threads
// read. Writing a training run's metrics goes through RunWriter, which has its own connection and thread.
// Several processes may open the same file at once: every write is a BEGIN IMMEDIATE transaction under
// busy_timeout with bounded retries, and readers never block writers (WAL).

#include "error.h"
#include "run_records.h"
#include "run_schema.h"
#include "run_summaries.h"

#include <QHash>
#include <QList>
#include <QMap>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>

#include <memory>

namespace ty {

class RunDatabase {
public:
    static constexpr int kSchemaVersion = kRunSchemaVersion;

    // $XDG_DATA_HOME/trainyard/runs.sqlite when XDG_DATA_HOME is an absolute path, else
    // ~/.local/share/trainyard/runs.sqlite.
    static QString defaultPath();

    // Creates the parent folder, opens, refuses a database written by a newer schema (changing nothing),
    // switches to WAL, creates or migrates the schema in one transaction, then marks stale running runs
    // interrupted.
    static Result<std::unique_ptr<RunDatabase>> open(const QString &path);

    ~RunDatabase();
    RunDatabase(const RunDatabase &) = delete;
    RunDatabase &operator=(const RunDatabase &) = delete;

    QString path() const;

    // SQLite's quick_check of the whole file (a fraction of a second for a million metric rows): an Error saying
    // the database is damaged, with the first problems found, unless it is intact.
    Status checkIntegrity() const;
    // Inserts a queued run with its parameters, creates its folder <db file>-runs/<id>/ and stores it, after
    // checkIntegrity(): nothing is written into a damaged file.
    Result<qint64> createRun(const NewRun &run);
    // <db file>-runs/<id> (for runs.sqlite: runs.sqlite-runs/7), absolute, so that two databases in one folder
    // never share run folders; computed, the folder may not exist. Runs created before kept <dir of db>/runs/<id>.
    QString runFolder(qint64 id) const;
    // The folder a run's files may be written to and deleted from: `recorded` (the run's folder column; empty:
    // runFolder(id)) when it is runFolder(id) or the older <dir of db>/runs/<id>, and neither it nor its
    // checkpoints/ is a symbolic link. Refused otherwise, naming the folder: an edited or foreign database
    // must not redirect where files are written or deleted.
    Result<QString> writableRunFolder(qint64 id, const QString &recorded) const;

    // Sets status, status_message and error_node (empty strings store NULL). Running sets started_at when
    // it is not set yet and clears ended_at; queued clears ended_at; every other (terminal) status sets ended_at.
    Status setStatus(qint64 id, RunStatus status, const QString &message = {}, const QString &errorNode = {});
    // For resume: after checkIntegrity() (nothing is written into a damaged file), sets an interrupted, stopped or
    // failed run queued, as this process's, and drops its rows after `fromStep` (deleteMetricsAfter()), in one write
    // transaction; refused, changing nothing, when it is not in one of those statuses any more (another resume got
    // there first).
    Status claimRunForResume(qint64 id, qint64 fromStep);
    Status setNotes(qint64 id, const QString &notes);
    // What a run of another kind than training found (RunInfo::result; an empty object stores NULL).
    Status setRunResult(qint64 id, const QJsonObject &result);
    Status setTags(qint64 id, const QStringList &tags);  // replaces all tags; duplicates and empty tags dropped
    Status renameRun(qint64 id, const QString &name);   // trimmed; empty stores NULL
    // Deletes the run and (by cascade) its parameters, metrics, events, checkpoints and tags. Leaves its folder.
    Status deleteRun(qint64 id);

    // Every run, newest first, in one query, without its preset (RunInfo::preset empty: run(id) has it), so that
    // a database of 10,000 runs lists in a fraction of a second.
    Result<QList<RunInfo>> listRuns() const;
    Result<RunInfo> run(qint64 id) const;     // error "no run with id N in <path>" if absent
    Result<QMap<QString, QString>> params(qint64 id) const;
    Result<QList<MetricPoint>> metrics(qint64 id, const QString &name = {}) const;  // ordered by name, step
    // Per metric name, the value at the highest step (the latest written row on ties).
    Result<QMap<QString, double>> lastMetricValues(qint64 id) const;
    // The same for every run at once, from the summaries RunWriter keeps (metric_summaries): one query, no metric
    // row read. A run without metrics has no entry.
    Result<QHash<qint64, QMap<QString, double>>> lastMetricValuesOfRuns() const;
    Result<QList<RunEvent>> events(qint64 id) const;                    // ordered by step, then as written
    Result<QList<CheckpointRecord>> checkpoints(qint64 id) const;       // ordered by step, then as written
    Result<QList<StageRecord>> stages(qint64 id) const;                 // in order; empty without training.stages

    // Live plots (run_database_queries.cpp): every metric row of the run written after row `afterRowId`
    // (0: all), ordered by rowid, i.e. as written. Sets *lastRowId (if given) to the highest rowid returned, or
    // to afterRowId when there is none; pass it back next time to get only newer rows. Reads only the new rows
    // (or, for a first read, only the run's rows). After deleteMetricsAfter() (a resume) reread from 0.
    Result<QList<MetricPoint>> metricsAfter(qint64 id, qint64 afterRowId, qint64 *lastRowId = nullptr) const;

    // The run browser (run_database_summaries.cpp). One row per run, newest first, with the best and last value
    // of each of keyMetricNames() it has, from metric_summaries (no scan of metric rows).
    Result<QList<RunSummaryRow>> runSummaries(const RunSummaryQuery &query = {}) const;
    // Count, minimum, maximum and last value of every metric of a run, by name.
    Result<QList<MetricSummary>> metricSummaries(qint64 id) const;
    // A cheap stamp to poll (one aggregate over the runs table): when it changes, reread what is shown.
    Result<RunsChangeStamp> changeStamp() const;
    // Cheaper still, and for every table: moves with every commit to the file, or to the team copy attached.
    Result<CommitStamp> commitStamp() const;

    // The "Both" view (run_database_team_copy.cpp, docs/team.md): the app's local copy of the team store (a
    // TeamRunCache file, this schema) read beside this database's runs through this connection. The copy is
    // ATTACHed as `team`, and temporary views named like the run tables (runs, metrics, events, evaluations, ...)
    // shadow them for reading: SQLite looks names up in temp first. A copied run reads under its store id negated
    // (store run 7 is run -7 here; its evaluations' ids below 0, in order), so ids never clash, without its sweep;
    // a copied run whose uuid this database holds is left out (the local run is the one shown). Writes name main.*
    // tables and change this database only; sweeps, the queue and settings stay this database's. Refused when
    // attached already.
    Status attachTeamCopy(const QString &copyPath);
    const QString &teamCopyPath() const { return m_teamCopy; }  // empty: none attached
    static bool isTeamCopyId(qint64 id) { return id < 0; }
    static qint64 storeIdOfCopy(qint64 id) { return -id; }
    static QString displayedRunId(qint64 id);  // "T7" for the copy's run -7, else the id

    // Evaluations (run_database_evaluations.cpp). Stores an evaluation with its samples, replacing one of the
    // same run, split and checkpoint step; returns its id.
    Result<qint64> addEvaluation(const EvaluationRecord &evaluation, const QList<EvaluationSampleRow> &samples);
    Result<QList<EvaluationRecord>> evaluations(qint64 runId) const;  // newest first
    Result<EvaluationRecord> evaluation(qint64 evaluationId) const;
    // Every run that has an evaluation with the id of its newest one, newest run first (one index scan).
    Result<QList<QPair<qint64, qint64>>> evaluatedRuns() const;
    // The samples of an evaluation, by index; with `label` / `predicted` >= 0 only those with that true or
    // predicted class (one confusion cell when both are given).
    Result<QList<EvaluationSampleRow>> evaluationSamples(qint64 evaluationId, int label = -1, int predicted = -1) const;

    // Sweeps (run_database_sweeps.cpp). createSweep records a running sweep driven by this process (after
    // checkIntegrity()). claimSweep makes this process its driver again (sweep resume), refused while another
    // live process on this host drives it or when it is finished. Statuses: running, finished, stopped, failed.
    Result<qint64> createSweep(const NewSweep &sweep);
    // The sweep with `uuid` here, recorded as createSweep does when it is not (a team sweep's worker, which trains
    // its trials from this database: docs/team.md#sweeps-over-many-machines).
    Result<qint64> adoptSweep(const NewSweep &sweep, const QString &uuid);
    // The id of the run with `uuid` here, 0 when there is none.
    Result<qint64> runIdByUuid(const QString &uuid) const;
    Status claimSweep(qint64 id);
    Status setSweepStatus(qint64 id, const QString &status);
    Status setSweepBestRun(qint64 id, qint64 runId);
    Result<SweepRecord> sweep(qint64 id) const;    // error "no sweep with id N in <path>" if absent
    Result<QList<SweepRecord>> listSweeps() const;  // newest first
    // The runs of a sweep's trials, by trial index (run_database_queries.cpp).
    Result<QMap<int, RunInfo>> sweepRuns(qint64 sweepId) const;

    // The run queue (run_database_queue.cpp, docs/sweeps.md#the-run-queue). The limit on runs trained at once
    // (settings key max_running; 0: none, the default).
    Result<int> maxRunning() const;
    Status setMaxRunning(int limit);
    // Adds a waiting entry for this process, last in order.
    Result<qint64> enqueue(const NewQueueEntry &entry);
    // In one write transaction: drops entries whose process is gone, renews this one's heartbeat, and admits it
    // when it was started now, or when fewer than the limit occupy a slot (runs queued or running, entries
    // admitted) and it is among the first waiting entries that fit.
    Result<QueueTurn> takeTurn(qint64 entryId);
    Status leaveQueue(qint64 entryId);
    Result<QList<QueueEntry>> queueEntries() const;  // waiting and admitted, in order; not those whose process is gone
    // The app's and `trainyard-cli queue`'s requests; each refuses an entry that is not waiting.
    Status cancelQueued(qint64 entryId);
    Status startQueuedNow(qint64 entryId);
    // Moves a waiting entry `steps` places earlier (negative) or later among the waiting entries.
    Status moveQueued(qint64 entryId, int steps);

    // For resume: drops the run's metric and event rows with step > `step` (and stages begun after it; one that
    // ended after it is open again) and recomputes its metric summaries.
    // Checkpoint records are kept (their files are still on disk; the trainer decides about them).
    Status deleteMetricsAfter(qint64 id, qint64 step);

    // Marks every running run interrupted whose host is this host and whose pid is dead, or whose heartbeat is
    // older than kStaleHeartbeatSeconds (see run_liveness.h). Returns how many were marked (0 on error).
    int markStaleRunsInterrupted();

private:
    RunDatabase(const QString &path, const QSqlDatabase &db);
    Error noSuchRun(qint64 id) const;
    Status requireRun(qint64 id) const;
    Status deleteRowsAfter(qint64 id, qint64 step);  // deleteMetricsAfter() inside a write transaction
    Status readKeyMetrics(QList<RunSummaryRow> &rows) const;  // runSummaries() with the team copy attached

    QString m_path;
    QString m_teamCopy;
    QSqlDatabase m_db;
};

} // namespace ty
