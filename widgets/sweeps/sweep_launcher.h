#pragma once
// Starts and stops sweep drivers for the app: `trainyard-cli sweep FILE --db DB`, where FILE is a sweep file
// written next to a snapshot of the canvas's preset (worker_snapshot.h), and `trainyard-cli sweep resume ID`.
// The driver trains the trials as its own worker processes and records everything in the run database, which
// the sweep view reads; this class only owns the driver processes.
//
// Ownership: owns the driver processes; destroying it asks each to stop (SIGINT: every trial writes a
// checkpoint, and `sweep resume` continues) and waits for them. Thread affinity: the GUI thread.

#include "error.h"
#include "preset.h"
#include "sweep_spec.h"

#include <QHash>
#include <QObject>

class QProcess;

namespace ty {

class SweepLauncher : public QObject {
    Q_OBJECT
public:
    explicit SweepLauncher(QObject *parent = nullptr);
    ~SweepLauncher() override;

    void setWorkerPath(const QString &path) { m_workerPath = path; }
    // Starts a sweep of `preset` (a snapshot of it: editing goes on meanwhile). sweepStarted tells its id.
    Status start(const SweepSpec &spec, const Preset &preset, const QString &dbPath);
    // Continues a stopped or interrupted sweep of `dbPath`.
    Status resume(qint64 sweepId, const QString &dbPath);
    // Asks the driver of a sweep this launcher started to stop; false when it runs none for that id.
    bool stop(qint64 sweepId);
    void stopAll();
    bool isRunning(qint64 sweepId) const;
    bool hasRunning() const;

Q_SIGNALS:
    void sweepStarted(qint64 sweepId);
    // exitCode as trainyard-cli's (0 every trial ended, 1 one could not start, 2 refused, 130 stopped); `message`
    // is the driver's error output when it refused the sweep.
    void sweepEnded(qint64 sweepId, int exitCode, const QString &message);

private:
    Status launch(const QStringList &arguments, qint64 knownId);

    QString m_workerPath;
    QHash<QProcess *, qint64> m_drivers;  // 0 until the driver names its sweep
};

} // namespace ty
