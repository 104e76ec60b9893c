#pragma once
// Value types of the run browser's queries: one row per run with the best and last values of the key metrics,
// per-metric summaries (count, minimum, maximum, last) of one run, and a cheap stamp that changes when runs are
// added, removed, or make progress. All are copyable values, safe to pass between threads.

#include "run_records.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <cmath>
#include <limits>

namespace ty {

// The summary of one metric of one run, kept by RunWriter in the metric_summaries table (schema version 2).
struct MetricSummary {
    QString name;
    qint64 count = 0;                                        // rows, NaN values included
    double minimum = std::numeric_limits<double>::quiet_NaN();  // over finite and infinite values; NaN: none
    double maximum = std::numeric_limits<double>::quiet_NaN();
    qint64 lastStep = 0;
    double last = std::numeric_limits<double>::quiet_NaN();     // the value at the highest step (latest row on ties)

    // The maximum for a metric where higher is better (metricHigherIsBetter), else the minimum.
    double best() const;
};

// "test/accuracy", "val/accuracy", "val/loss", "train/loss": the columns of the run browser.
const QStringList &keyMetricNames();

// True for accuracy-like metrics (the name's last part contains "acc", "f1", "precision", "recall", "auc" or
// "iou"); false for losses, errors and everything else (lower is better).
bool metricHigherIsBetter(const QString &name);

// One row of the run browser.
struct RunSummaryRow {
    qint64 id = 0;
    QString name;
    RunStatus status = RunStatus::Queued;
    QString statusMessage;
    QString errorNode;
    QString presetName;                 // the stored preset's "name"
    QDateTime createdAt, startedAt, endedAt, heartbeatAt;  // UTC; invalid when not set
    QString device;
    QString host;                       // where the run trains or trained, and its process there
    qint64 pid = 0;
    QString notes;
    QStringList tags;                   // sorted
    // Where its first weights came from (provenance.init_from): {"run", "run_name", "checkpoint",
    // "checkpoint_step", "sha256"} or {"file", "sha256"}, plus "nodes" and "map" when chosen and the import report's
    // "import" {"map", "strict", "counts"} (its tensors left out: RunInfo::provenance has them); empty when trained
    // from scratch.
    QJsonObject parent;
    QString kind;                       // runs.kind: kRunKindTrain or kRunKindLrFind (run_records.h)
    QMap<QString, MetricSummary> keyMetrics;  // by name, for those of keyMetricNames() the run has

    // Seconds from start to end (or to the last heartbeat while running); NaN when it never started.
    double durationSeconds() const;
    qint64 parentRunId() const;  // the run it started from, 0 when none (or a file)
};

// Which runs runSummaries() returns; every condition given applies. Newest (highest id) first.
struct RunSummaryQuery {
    qint64 afterId = 0;        // when not 0: only runs with id > afterId (the team copy's ids are negative)
    qint64 beforeId = 0;       // when not 0: only runs with id < beforeId (pages going back in time)
    QList<qint64> ids;         // when not empty: only these runs
    bool activeOnly = false;   // only queued and running runs
    int limit = 0;             // when > 0: at most this many rows
};

// Changes whenever a run is created or deleted, starts, ends, or writes its heartbeat (every second while it
// trains): built from index-only aggregates, cheap to poll every second. Notes, tags and renames made by
// another process do not change it.
struct RunsChangeStamp {
    qint64 count = 0;
    qint64 maxId = 0;
    QString activeIds;         // ids of the queued and running runs, comma-separated
    QString lastHeartbeat;     // max(heartbeat_at) of those, as stored
    QString lastStarted;       // max(started_at) of those

    bool operator==(const RunsChangeStamp &o) const
    {
        return count == o.count && maxId == o.maxId && activeIds == o.activeIds && lastHeartbeat == o.lastHeartbeat
            && lastStarted == o.lastStarted;
    }
    bool operator!=(const RunsChangeStamp &o) const { return !(*this == o); }
};

// Moves whenever anything is committed to the database file: SQLite's data_version (moves when another
// connection, in this process or another, commits) and this connection's total_changes() (moves when it writes).
// One query that reads no table, so it can be polled several times a second; equal stamps mean that nothing any
// reader could see has changed. -1: not read yet.
struct CommitStamp {
    qint64 dataVersion = -1;
    qint64 ownChanges = -1;
    qint64 teamCopyVersion = -1;  // the attached team copy's data_version (RunDatabase::attachTeamCopy); -1: none

    bool operator==(const CommitStamp &o) const
    {
        return dataVersion == o.dataVersion && ownChanges == o.ownChanges && teamCopyVersion == o.teamCopyVersion;
    }
    bool operator!=(const CommitStamp &o) const { return !(*this == o); }
};

} // namespace ty
