#include "augmentation_worker.h"

#include <QJsonDocument>
#include <QProcess>

namespace ty {

namespace {

quint64 idOf(const QJsonObject &o) { return quint64(o.value(QStringLiteral("id")).toInteger()); }

} // namespace

AugmentationWorker::AugmentationWorker(const QString &program, QObject *parent) : QObject(parent), m_program(program) {}

AugmentationWorker::~AugmentationWorker()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->closeWriteChannel();  // the worker ends when its stdin closes; kill it if it is busy
        if (!m_process->waitForFinished(200)) {
            m_process->kill();
            m_process->waitForFinished(1000);
        }
    }
}

qint64 AugmentationWorker::processId() const
{
    return m_process && m_process->state() == QProcess::Running ? m_process->processId() : 0;
}

quint64 AugmentationWorker::request(QJsonObject request)
{
    const quint64 id = m_nextId++;
    request.insert(QStringLiteral("id"), qint64(id));
    if (!m_inFlight) {
        send(request);
        return id;
    }
    if (m_waiting)  // replaced by a newer one: answered now, never sent
        Q_EMIT replied(idOf(*m_waiting), QJsonObject{{QStringLiteral("id"), qint64(idOf(*m_waiting))}, {QStringLiteral("superseded"), true}});
    m_waiting = request;
    return id;
}

void AugmentationWorker::send(const QJsonObject &request)
{
    m_inFlight = idOf(request);
    if (!m_process || m_process->state() == QProcess::NotRunning) {
        if (m_process)
            m_process->deleteLater();
        m_buffer.clear();
        m_process = new QProcess(this);
        m_process->setProgram(m_program);
        m_process->setArguments({QStringLiteral("augment"), QStringLiteral("--serve")});
        m_process->setProcessChannelMode(QProcess::SeparateChannels);
        connect(m_process, &QProcess::readyReadStandardOutput, this, &AugmentationWorker::readReplies);
        connect(m_process, &QProcess::finished, this, [this] {
            const QString err = m_process ? QString::fromUtf8(m_process->readAllStandardError()).trimmed() : QString();
            stopped(err.isEmpty() ? tr("The training worker stopped (exit code %1)").arg(m_process ? m_process->exitCode() : -1) : err);
        });
        connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
            if (error == QProcess::FailedToStart)
                stopped(tr("The training worker did not start (%1): %2").arg(m_program, m_process ? m_process->errorString() : QString()));
        });
        m_process->start();  // writes before it has started are buffered and sent once it runs
    }
    if (m_process)  // not when it failed to start at once
        m_process->write(QJsonDocument(request).toJson(QJsonDocument::Compact) + '\n');
}

void AugmentationWorker::readReplies()
{
    m_buffer += m_process->readAllStandardOutput();
    qsizetype end;
    while ((end = m_buffer.indexOf('\n')) >= 0) {
        const QJsonObject reply = QJsonDocument::fromJson(m_buffer.left(end)).object();
        m_buffer.remove(0, end + 1);
        const quint64 id = idOf(reply);
        if (!m_inFlight || id != *m_inFlight)
            continue;  // not a reply to the request in flight (e.g. the worker's answer to a line it could not read)
        m_inFlight.reset();
        if (m_waiting) {
            const QJsonObject next = *m_waiting;
            m_waiting.reset();
            send(next);
        }
        Q_EMIT replied(id, reply);
    }
}

// The worker ended or could not start: the request in flight gets the reason, a waiting one starts a new worker.
void AugmentationWorker::stopped(const QString &why)
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->deleteLater();
        m_process = nullptr;
    }
    const std::optional<quint64> inFlight = m_inFlight;
    m_inFlight.reset();
    if (m_waiting) {
        const QJsonObject next = *m_waiting;
        m_waiting.reset();
        send(next);
    }
    if (inFlight)
        answerWithError(*inFlight, why);
}

void AugmentationWorker::answerWithError(quint64 id, const QString &message)
{
    Q_EMIT replied(id, QJsonObject{{QStringLiteral("id"), qint64(id)}, {QStringLiteral("error"), message}});
}

} // namespace ty
