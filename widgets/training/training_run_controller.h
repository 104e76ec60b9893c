#pragma once
// One training run in a worker process: `trainyard-cli run SNAPSHOT --events --db DB` for a snapshot of a
// preset (or `trainyard-cli resume ID --events --db DB`), read through EventStreamParser. Exposes the run's
// state, epoch, step, ETA and last metrics; stops it (SIGINT: the worker writes a checkpoint and ends as
// stopped), pauses and continues it (SIGSTOP / SIGCONT), and tells a crashed worker from a finished one: a worker
// that ends without a "finished" event leaves its run interrupted (marked so in the database at once) and
// resumable. Several runs train side by side with one controller each.
//
// Thread affinity: the GUI thread (or any thread with an event loop); owns its QProcess and parser.
// Destroying a controller whose worker still runs stops it (SIGINT, then SIGKILL after kStopGraceMs).

#include "error.h"
#include "preset.h"
#include "training_events.h"

#include <QElapsedTimer>
#include <QList>
#include <QMap>
#include <QObject>
#include <QProcess>
#include <QString>

namespace ty {

class EventStreamParser;

enum class TrainingState {
    Idle,       // not started
    Starting,   // the worker runs but has not started training (loading data, checking the preset)
    Running,
    Paused,
    Stopping,   // asked to stop; waits for the checkpoint and the "finished" event
    Ended,      // see outcome()
};
QString trainingStateName(TrainingState state);  // "idle", "starting", "running", ...

// How a run ended. status is a run status name (finished, failed, diverged, stopped, interrupted) or
// "rejected" when the worker refused the input (then nothing was recorded and `errors` says why).
struct TrainingOutcome {
    QString status;
    QString message;
    QString node;                  // the node to blame, if any
    QList<TrainingError> errors;   // bad input: one per problem
    int exitCode = 0;
    bool crashed = false;          // the worker died from a signal
};

struct TrainingOptions {
    QString name;        // --name (empty: the preset's name, or "untitled")
    QString device;      // --device auto|cpu|cuda (empty: the preset's training.device)
    QStringList sets;    // --set KEY=VALUE
    int processes = 1;   // --nproc N above 1: a data-parallel run of N processes on this machine (docs/distributed.md)
};

class TrainingRunController : public QObject {
    Q_OBJECT
public:
    static constexpr int kStopGraceMs = 5000;

    explicit TrainingRunController(QObject *parent = nullptr);
    ~TrainingRunController() override;

    // trainyard-cli next to the application's executable (installed: both in bin/), else one folder up (the build
    // tree: app/gui/trainyard, app/trainyard-cli); TRAINYARD_CLI in the environment overrides both.
    static QString defaultWorkerPath();
    void setWorkerPath(const QString &path) { m_workerPath = path; }
    QString workerPath() const { return m_workerPath; }

    // Writes the snapshot (worker_snapshot.h) and starts the worker. Errors (a controller already used, no
    // worker program, an unwritable run area) come back at once; everything later comes as signals.
    Status start(const Preset &preset, const QString &dbPath, const TrainingOptions &options = {});
    // Continues an interrupted, stopped or failed run from its last checkpoint.
    // name: for display; processes: as many as the run trained with (its provenance's distributed.world_size).
    Status resume(qint64 runId, const QString &dbPath, const QString &runName = QString(), int processes = 1);

    void stop();            // SIGINT (and SIGCONT when paused); a second stop() kills the worker at once
    void pause();           // SIGSTOP
    void continueRun();     // SIGCONT
    void kill();            // SIGKILL: the run ends interrupted

    TrainingState state() const { return m_state; }
    bool isActive() const { return m_state != TrainingState::Idle && m_state != TrainingState::Ended; }
    qint64 runId() const { return m_runId; }          // 0 until "started" (or given to resume())
    QString dbPath() const { return m_dbPath; }
    QString runName() const { return m_runName; }
    QString snapshotPath() const { return m_snapshotPath; }
    const TrainingStarted &startInfo() const { return m_startInfo; }
    int epoch() const { return m_epoch; }             // the epoch in progress (1-based), 0 before the first step
    qint64 step() const { return m_step; }
    qint64 totalSteps() const { return m_startInfo.totalSteps; }
    // Seconds left, from the steps done since training started (or continued after a pause) and the time they took:
    // known from the first metrics of the first epoch on; negative before.
    double etaSeconds() const;
    QMap<QString, double> lastMetrics() const { return m_lastMetrics; }
    QList<TrainingNote> notes() const { return m_notes; }
    const TrainingOutcome &outcome() const { return m_outcome; }
    QString stderrTail() const { return m_stderr; }
    qint64 processId() const;
    // One line for a status display: "running · epoch 3/10 · step 1290/4300 · ETA 0:42 · train/loss 0.412".
    QString statusLine() const;

Q_SIGNALS:
    void stateChanged(ty::TrainingState state);
    void runStarted(qint64 runId);
    void progressChanged();  // step, epoch, ETA or last metrics changed
    void metricsReceived(const QList<ty::MetricPoint> &rows);
    void epochEnded(const ty::TrainingEpoch &event);
    void checkpointWritten(const ty::TrainingCheckpoint &event);
    void noteReceived(const ty::TrainingNote &note);
    // Bad input, failed runs and errors pinned to a node.
    void nodeErrorReported(const QString &nodeId, const QString &message);
    // Once, when the worker has ended and outcome() is final.
    void finished(const ty::TrainingOutcome &outcome);

private:
    Status launch(const QStringList &arguments, const QString &dbPath);
    void setState(TrainingState state);
    void onStarted(const TrainingStarted &event);
    void onMetrics(const QList<MetricPoint> &rows);
    void onFinishedEvent(const TrainingFinished &event);
    void onProcessFinished(int exitCode, QProcess::ExitStatus exitStatus);
    void onProcessError(QProcess::ProcessError error);
    void readStderr();
    void concludeWithoutFinishedEvent(int exitCode, bool crashed);
    void signalWorker(int signal);
    void removeSnapshot();

    QString m_workerPath;
    QProcess *m_process = nullptr;
    EventStreamParser *m_parser = nullptr;
    TrainingState m_state = TrainingState::Idle;
    QString m_dbPath;
    QString m_snapshotPath;
    QString m_runName;
    qint64 m_runId = 0;
    TrainingStarted m_startInfo;
    int m_epoch = 0;
    qint64 m_step = 0;
    QMap<QString, double> m_lastMetrics;
    QList<TrainingNote> m_notes;
    QList<TrainingError> m_errors;
    bool m_finishedEventSeen = false;
    TrainingFinished m_finishedEvent;
    TrainingOutcome m_outcome;
    QString m_stderr;
    int m_stopRequests = 0;
    QElapsedTimer m_clock;        // since "started"
    qint64 m_rateStartStep = -1;  // the step and time the rate is measured from
    qint64 m_rateStartMs = 0;
};

} // namespace ty

Q_DECLARE_METATYPE(ty::TrainingOutcome)
