#include "training_run_controller.h"

#include "run_process_state.h"

#include "common/duration_text.h"
#include "event_stream_parser.h"
#include "worker_snapshot.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <csignal>
#include <cmath>

namespace ty {

namespace {

Error controllerError(const QString &message)
{
    return Error(message);
}

} // namespace

QString trainingStateName(TrainingState state)
{
    switch (state) {
    case TrainingState::Idle: return QStringLiteral("idle");
    case TrainingState::Starting: return QStringLiteral("starting");
    case TrainingState::Running: return QStringLiteral("running");
    case TrainingState::Paused: return QStringLiteral("paused");
    case TrainingState::Stopping: return QStringLiteral("stopping");
    case TrainingState::Ended: return QStringLiteral("ended");
    }
    return QString();
}

TrainingRunController::TrainingRunController(QObject *parent)
    : QObject(parent), m_workerPath(defaultWorkerPath()), m_parser(new EventStreamParser(this))
{
    connect(m_parser, &EventStreamParser::started, this, &TrainingRunController::onStarted);
    connect(m_parser, &EventStreamParser::metricsReceived, this, &TrainingRunController::onMetrics);
    connect(m_parser, &EventStreamParser::epochEnded, this, [this](const TrainingEpoch &e) {
        for (auto it = e.metrics.constBegin(); it != e.metrics.constEnd(); ++it)
            m_lastMetrics.insert(it.key(), it.value());
        m_epoch = e.epoch;
        Q_EMIT epochEnded(e);
        Q_EMIT progressChanged();
    });
    connect(m_parser, &EventStreamParser::checkpointWritten, this, &TrainingRunController::checkpointWritten);
    connect(m_parser, &EventStreamParser::noteReceived, this, [this](const TrainingNote &note) {
        m_notes.append(note);
        Q_EMIT noteReceived(note);
    });
    connect(m_parser, &EventStreamParser::finished, this, &TrainingRunController::onFinishedEvent);
    connect(m_parser, &EventStreamParser::errorReported, this, [this](const TrainingError &e) { m_errors.append(e); });
}

TrainingRunController::~TrainingRunController()
{
    if (!m_process || m_process->state() == QProcess::NotRunning) {
        removeSnapshot();
        return;
    }
    m_process->disconnect(this);
    signalWorker(SIGCONT);
    if (m_state != TrainingState::Stopping)  // a second SIGINT would end the worker before its checkpoint
        signalWorker(SIGINT);
    if (!m_process->waitForFinished(kStopGraceMs)) {
        m_process->kill();
        m_process->waitForFinished(1000);
    }
    removeSnapshot();
}

QString TrainingRunController::defaultWorkerPath()
{
    const QString overridden = qEnvironmentVariable("TRAINYARD_CLI");
    if (!overridden.isEmpty())
        return overridden;
    const QDir appDir(QCoreApplication::applicationDirPath());
    const QString installed = appDir.filePath(QStringLiteral("trainyard-cli"));
    // In the build tree the app is build/app/gui/trainyard and the worker build/app/trainyard-cli.
    const QString buildTree = QDir::cleanPath(appDir.filePath(QStringLiteral("../trainyard-cli")));
    if (!QFileInfo(installed).isExecutable() && QFileInfo(buildTree).isExecutable())
        return buildTree;
    return installed;
}

Status TrainingRunController::start(const Preset &preset, const QString &dbPath, const TrainingOptions &options)
{
    if (m_state != TrainingState::Idle)
        return controllerError(QStringLiteral("this controller has already run a worker; use a new one"));
    if (dbPath.isEmpty())
        return controllerError(QStringLiteral("no run database given"));
    const Result<QString> snapshot = writeWorkerSnapshot(preset, dbPath);
    if (!snapshot.ok())
        return snapshot.error();
    m_snapshotPath = snapshot.value();
    m_runName = !options.name.isEmpty() ? options.name
              : !preset.name.isEmpty()  ? preset.name
                                        : QStringLiteral("untitled");
    QStringList arguments{QStringLiteral("run"), m_snapshotPath, QStringLiteral("--events"), QStringLiteral("--db"),
                          QFileInfo(dbPath).absoluteFilePath(), QStringLiteral("--name"), m_runName};
    if (!options.device.isEmpty())
        arguments << QStringLiteral("--device") << options.device;
    if (options.processes > 1)
        arguments << QStringLiteral("--nproc") << QString::number(options.processes);
    for (const QString &set : options.sets)
        arguments << QStringLiteral("--set") << set;
    const Status launched = launch(arguments, dbPath);
    if (!launched.ok())
        removeSnapshot();
    return launched;
}

Status TrainingRunController::resume(qint64 runId, const QString &dbPath, const QString &runName, int processes)
{
    if (m_state != TrainingState::Idle)
        return controllerError(QStringLiteral("this controller has already run a worker; use a new one"));
    m_runId = runId;
    m_runName = runName;
    QStringList arguments{QStringLiteral("resume"), QString::number(runId), QStringLiteral("--events"), QStringLiteral("--db"),
                          QFileInfo(dbPath).absoluteFilePath()};
    if (processes > 1)
        arguments << QStringLiteral("--nproc") << QString::number(processes);
    return launch(arguments, dbPath);
}

Status TrainingRunController::launch(const QStringList &arguments, const QString &dbPath)
{
    const QFileInfo worker(m_workerPath);
    if (!worker.isFile() || !worker.isExecutable())
        return controllerError(QStringLiteral("the training worker %1 is missing or not executable").arg(m_workerPath));
    m_dbPath = QFileInfo(dbPath).absoluteFilePath();
    m_process = new QProcess(this);
    m_process->setProgram(worker.absoluteFilePath());
    m_process->setArguments(arguments);
    m_process->setProcessChannelMode(QProcess::SeparateChannels);
    connect(m_process, &QProcess::readyReadStandardOutput, this,
            [this] { m_parser->feed(m_process->readAllStandardOutput()); });
    connect(m_process, &QProcess::readyReadStandardError, this, &TrainingRunController::readStderr);
    connect(m_process, &QProcess::finished, this, &TrainingRunController::onProcessFinished);
    connect(m_process, &QProcess::errorOccurred, this, &TrainingRunController::onProcessError);
    setState(TrainingState::Starting);
    m_process->start();
    return Status::success();
}

void TrainingRunController::setState(TrainingState state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

qint64 TrainingRunController::processId() const { return m_process ? m_process->processId() : 0; }

void TrainingRunController::signalWorker(int signal)
{
    const qint64 pid = processId();
    if (pid <= 0 || m_process->state() != QProcess::Running)
        return;
    ::kill(pid_t(pid), signal);
    // A distributed run pauses and continues as a whole: its other ranks are the worker's children.
    if (signal == SIGSTOP || signal == SIGCONT)
        for (qint64 child : childProcesses(pid))
            ::kill(pid_t(child), signal);
}

void TrainingRunController::stop()
{
    if (!isActive())
        return;
    if (++m_stopRequests > 1)
        return kill();
    const bool trainingBegun = m_state != TrainingState::Starting;
    setState(TrainingState::Stopping);
    // Before "started" the worker is still loading and would forget a SIGINT: it is sent once training begins.
    if (trainingBegun) {
        signalWorker(SIGINT);
        signalWorker(SIGCONT);  // a paused worker must run to write its checkpoint
    }
}

void TrainingRunController::pause()
{
    if (m_state != TrainingState::Running && m_state != TrainingState::Starting)
        return;
    signalWorker(SIGSTOP);
    setState(TrainingState::Paused);
}

void TrainingRunController::continueRun()
{
    if (m_state != TrainingState::Paused)
        return;
    signalWorker(SIGCONT);
    // Measure the rate afresh from here: the pause is no training time.
    m_rateStartStep = m_clock.isValid() ? m_step : -1;
    m_rateStartMs = m_clock.isValid() ? m_clock.elapsed() : 0;
    setState(m_runId > 0 && m_clock.isValid() ? TrainingState::Running : TrainingState::Starting);
}

void TrainingRunController::kill()
{
    if (!isActive())
        return;
    signalWorker(SIGKILL);
}

void TrainingRunController::onStarted(const TrainingStarted &event)
{
    m_startInfo = event;
    m_runId = event.runId;
    m_step = std::max<qint64>(0, event.resumedAtStep);
    m_clock.start();
    // The rate is measured from here (the data is loaded): the first metrics of the first epoch give an ETA.
    m_rateStartStep = m_step;
    m_rateStartMs = 0;
    if (m_state == TrainingState::Stopping) {
        signalWorker(SIGINT);
        signalWorker(SIGCONT);
    } else if (m_state == TrainingState::Starting) {
        setState(TrainingState::Running);
    }
    Q_EMIT runStarted(m_runId);
    Q_EMIT progressChanged();
}

void TrainingRunController::onMetrics(const QList<MetricPoint> &rows)
{
    for (const MetricPoint &row : rows) {
        m_step = std::max(m_step, row.step);
        m_epoch = std::max(m_epoch, row.epoch);
        m_lastMetrics.insert(row.name, row.value);
    }
    Q_EMIT metricsReceived(rows);
    Q_EMIT progressChanged();
}

double TrainingRunController::etaSeconds() const
{
    if (!m_clock.isValid() || m_rateStartStep < 0 || m_step <= m_rateStartStep || totalSteps() <= 0)
        return -1;
    const double secondsPerStep = double(m_clock.elapsed() - m_rateStartMs) / 1000.0 / double(m_step - m_rateStartStep);
    return secondsPerStep * double(std::max<qint64>(0, totalSteps() - m_step));
}

void TrainingRunController::onFinishedEvent(const TrainingFinished &event)
{
    m_finishedEventSeen = true;
    m_finishedEvent = event;
    if (event.runId > 0)
        m_runId = event.runId;
    for (auto it = event.summary.constBegin(); it != event.summary.constEnd(); ++it)
        m_lastMetrics.insert(it.key(), it.value());
    m_step = std::max(m_step, event.steps);
    Q_EMIT progressChanged();
}

QString TrainingRunController::statusLine() const
{
    QStringList parts;
    if (m_state == TrainingState::Ended) {
        parts << (m_outcome.message.isEmpty() ? m_outcome.status
                                              : QStringLiteral("%1: %2").arg(m_outcome.status, m_outcome.message));
    } else {
        parts << trainingStateName(m_state);
    }
    if (m_startInfo.epochs > 0 && m_epoch > 0)
        parts << QStringLiteral("epoch %1/%2").arg(m_epoch).arg(m_startInfo.epochs);
    if (totalSteps() > 0 && m_step > 0)
        parts << QStringLiteral("step %1/%2").arg(m_step).arg(totalSteps());
    const double eta = etaSeconds();
    if (isActive() && eta >= 0)
        parts << QStringLiteral("ETA %1").arg(durationText(eta));
    for (const char *name : {"train/loss", "val/loss", "val/accuracy", "test/accuracy"}) {
        const auto it = m_lastMetrics.constFind(QLatin1String(name));
        if (it != m_lastMetrics.constEnd())
            parts << QStringLiteral("%1 %2").arg(it.key()).arg(it.value(), 0, 'g', 4);
    }
    return parts.join(QStringLiteral(" · "));
}

} // namespace ty
