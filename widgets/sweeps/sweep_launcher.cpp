#include "sweep_launcher.h"

#include "json_io.h"
#include "training/training_run_controller.h"
#include "training/worker_snapshot.h"

#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>

#include <csignal>

namespace ty {

namespace {
constexpr int kStopGraceMs = 30000;
}

SweepLauncher::SweepLauncher(QObject *parent) : QObject(parent), m_workerPath(TrainingRunController::defaultWorkerPath()) {}

SweepLauncher::~SweepLauncher()
{
    stopAll();
    for (auto it = m_drivers.begin(); it != m_drivers.end(); ++it) {
        it.key()->disconnect(this);
        if (!it.key()->waitForFinished(kStopGraceMs))
            it.key()->kill();
    }
}

Status SweepLauncher::start(const SweepSpec &spec, const Preset &preset, const QString &dbPath)
{
    const Result<QString> snapshot = writeWorkerSnapshot(preset, dbPath);
    if (!snapshot)
        return snapshot.error();
    SweepSpec written = spec;
    written.presetFile = snapshot.value();
    written.embeddedPreset = QJsonObject();
    written.overlays.clear();
    const QString file = snapshot.value().chopped(int(qstrlen(".trainyard.json"))) + QStringLiteral(".trainyard-sweep.json");
    if (Status saved = writeJsonObjectFile(file, sweepSpecToJson(written)); !saved)
        return saved.error();
    return launch({QStringLiteral("sweep"), file, QStringLiteral("--db"), QFileInfo(dbPath).absoluteFilePath()}, 0);
}

Status SweepLauncher::resume(qint64 sweepId, const QString &dbPath)
{
    return launch({QStringLiteral("sweep"), QStringLiteral("resume"), QString::number(sweepId), QStringLiteral("--db"),
                   QFileInfo(dbPath).absoluteFilePath()},
                  sweepId);
}

Status SweepLauncher::launch(const QStringList &arguments, qint64 knownId)
{
    const QFileInfo worker(m_workerPath);
    if (!worker.isFile() || !worker.isExecutable())
        return Error(QStringLiteral("the training worker %1 is missing or not executable").arg(m_workerPath));
    auto *process = new QProcess(this);
    m_drivers.insert(process, knownId);
    process->setProgram(worker.absoluteFilePath());
    process->setArguments(arguments);
    connect(process, &QProcess::readyReadStandardOutput, this, [this, process] {
        // The driver's first line names the sweep: "sweep 3: 8 trials, 2 at a time ...".
        // Later output (its progress) is read and dropped.
        static const QRegularExpression first(QStringLiteral("^sweep (\\d+): "), QRegularExpression::MultilineOption);
        const QString text = QString::fromUtf8(process->readAllStandardOutput());
        if (m_drivers.value(process) != 0)
            return;
        const QRegularExpressionMatch match = first.match(text);
        if (match.hasMatch()) {
            m_drivers[process] = match.captured(1).toLongLong();
            Q_EMIT sweepStarted(m_drivers.value(process));
        }
    });
    connect(process, &QProcess::finished, this, [this, process](int code, QProcess::ExitStatus status) {
        const qint64 id = m_drivers.take(process);
        const QString message = QString::fromUtf8(process->readAllStandardError()).trimmed();
        process->deleteLater();
        Q_EMIT sweepEnded(id, status == QProcess::NormalExit ? code : -1, message);
    });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        const qint64 id = m_drivers.take(process);
        process->deleteLater();
        Q_EMIT sweepEnded(id, -1, process->errorString());
    });
    process->start();
    if (knownId > 0)
        Q_EMIT sweepStarted(knownId);
    return Status::success();
}

bool SweepLauncher::stop(qint64 sweepId)
{
    for (auto it = m_drivers.begin(); it != m_drivers.end(); ++it)
        if (it.value() == sweepId && it.key()->state() == QProcess::Running) {
            ::kill(pid_t(it.key()->processId()), SIGINT);
            return true;
        }
    return false;
}

void SweepLauncher::stopAll()
{
    for (auto it = m_drivers.begin(); it != m_drivers.end(); ++it)
        if (it.key()->state() == QProcess::Running)
            ::kill(pid_t(it.key()->processId()), SIGINT);
}

bool SweepLauncher::isRunning(qint64 sweepId) const
{
    for (auto it = m_drivers.begin(); it != m_drivers.end(); ++it)
        if (it.value() == sweepId)
            return true;
    return false;
}

bool SweepLauncher::hasRunning() const { return !m_drivers.isEmpty(); }

} // namespace ty
