// TrainingRunController: the worker process ending (with or without its "finished" event), its stderr, and the
// snapshot it read.

#include "training_run_controller.h"

#include "event_stream_parser.h"
#include "run_database.h"

#include <QFile>

namespace ty {

namespace {

constexpr int kStderrKeptChars = 16 * 1024;

// The last non-empty line of the worker's stderr (its error message), without the "error: " prefix.
QString lastErrorLine(const QString &stderrText)
{
    const QStringList lines = stderrText.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        const QString line = it->trimmed();
        if (!line.isEmpty())
            return line.startsWith(QLatin1String("error: ")) ? line.mid(7) : line;
    }
    return QString();
}

} // namespace

void TrainingRunController::readStderr()
{
    m_stderr += QString::fromUtf8(m_process->readAllStandardError());
    if (m_stderr.size() > kStderrKeptChars)
        m_stderr = m_stderr.right(kStderrKeptChars);
}

void TrainingRunController::onProcessError(QProcess::ProcessError error)
{
    if (error != QProcess::FailedToStart || m_state == TrainingState::Ended)
        return;  // crashes and exits arrive through finished()
    m_outcome.status = QStringLiteral("failed");
    m_outcome.message = QStringLiteral("cannot start the training worker %1: %2").arg(m_workerPath, m_process->errorString());
    removeSnapshot();
    setState(TrainingState::Ended);
    Q_EMIT finished(m_outcome);
}

void TrainingRunController::onProcessFinished(int exitCode, QProcess::ExitStatus exitStatus)
{
    m_parser->feed(m_process->readAllStandardOutput());
    m_parser->finish();
    readStderr();
    const bool crashed = exitStatus == QProcess::CrashExit;
    m_outcome.exitCode = exitCode;
    m_outcome.crashed = crashed;
    if (m_finishedEventSeen) {
        m_outcome.status = m_finishedEvent.status;
        m_outcome.message = m_finishedEvent.message;
        m_outcome.node = m_finishedEvent.node;
    } else if (!m_errors.isEmpty()) {
        m_outcome.status = QStringLiteral("rejected");
        m_outcome.errors = m_errors;
        m_outcome.message = m_errors.first().message;
        m_outcome.node = m_errors.first().node;
    } else {
        concludeWithoutFinishedEvent(exitCode, crashed);
    }
    for (const TrainingError &error : std::as_const(m_outcome.errors))
        if (!error.node.isEmpty())
            Q_EMIT nodeErrorReported(error.node, error.message);
    if (m_outcome.errors.isEmpty() && !m_outcome.node.isEmpty())
        Q_EMIT nodeErrorReported(m_outcome.node, m_outcome.message);
    removeSnapshot();
    setState(TrainingState::Ended);
    Q_EMIT finished(m_outcome);
}

void TrainingRunController::concludeWithoutFinishedEvent(int exitCode, bool crashed)
{
    const QString how = crashed ? QStringLiteral("was killed or crashed")
                                : QStringLiteral("exited with code %1").arg(exitCode);
    if (m_runId <= 0) {
        m_outcome.status = exitCode == 2 && !crashed ? QStringLiteral("rejected") : QStringLiteral("failed");
        const QString detail = lastErrorLine(m_stderr);
        m_outcome.message = detail.isEmpty() ? QStringLiteral("the training worker %1 before training started").arg(how)
                                             : detail;
        return;
    }
    // The run is recorded but its writer died: mark it interrupted now (its pid is gone) rather than after the
    // heartbeat goes stale, so the browser shows it resumable at once.
    m_outcome.status = runStatusName(RunStatus::Interrupted);
    m_outcome.message = QStringLiteral("the training worker %1 without finishing; the run can be resumed").arg(how);
    if (Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(m_dbPath); db.ok()) {
        db.value()->markStaleRunsInterrupted();
        if (Result<RunInfo> info = db.value()->run(m_runId); info.ok() && info.value().status != RunStatus::Interrupted
                                                               && runStatusIsTerminal(info.value().status)) {
            m_outcome.status = runStatusName(info.value().status);  // it did finish; only the stream was cut
            m_outcome.message = info.value().statusMessage;
        }
    }
}

void TrainingRunController::removeSnapshot()
{
    if (!m_snapshotPath.isEmpty())
        QFile::remove(m_snapshotPath);
}

} // namespace ty
