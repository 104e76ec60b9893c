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
    if (m_waiting) {  // replaced by a newer one: a preview is answered now, a warm-up dropped; never sent
        const quint64 replaced = idOf(*m_waiting);
        if (!m_warmUps.remove(replaced))
            Q_EMIT replied(replaced, QJsonObject{{QStringLiteral("id"), qint64(replaced)}, {QStringLiteral("superseded"), true}});
    }
    m_waiting = request;
    return id;
}

void AugmentationWorker::warmUp(QJsonObject request)
{
    if (m_waiting && !m_warmUps.contains(idOf(*m_waiting)))
        return;  // a preview waits: it warms the worker as well
    const quint64 id = m_nextId++;
    request.insert(QStringLiteral("id"), qint64(id));
    m_warmUps.insert(id);
    if (!m_inFlight) {
        send(request);
        return;
    }
    if (m_waiting)
        m_warmUps.remove(idOf(*m_waiting));
    m_waiting = request;
}

void AugmentationWorker::startProcess()
{
    if (m_process) {  // ended, its signals not yet handled: they must not reach the new one's handlers
        m_process->disconnect(this);
        m_process->deleteLater();
    }
    m_buffer.clear();
    ++m_starts;
    m_process = new QProcess(this);
    m_process->setProgram(m_program);
    m_process->setArguments({QStringLiteral("augment"), QStringLiteral("--serve")});
    m_process->setProcessChannelMode(QProcess::SeparateChannels);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &AugmentationWorker::readReplies);
    connect(m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        const QString err = m_process ? QString::fromUtf8(m_process->readAllStandardError()).trimmed() : QString();
        if (!err.isEmpty())
            stopped(err);
        else if (status == QProcess::CrashExit)
            stopped(tr("The training worker (%1) stopped unexpectedly; the next preview starts it again").arg(m_program));
        else
            stopped(tr("The training worker (%1) stopped (exit code %2); the next preview starts it again").arg(m_program).arg(exitCode));
    });
    connect(m_process, &QProcess::errorOccurred, this, [this, process = m_process.data()](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        const QString why = tr("The training worker did not start (%1): %2").arg(m_program, process->errorString());
        // From the event loop: never inside the request() that started it, whose caller does not know the id yet.
        QMetaObject::invokeMethod(this, [this, process, why] {
            if (m_process == process)
                stopped(why);
        }, Qt::QueuedConnection);
    });
    m_process->start();  // writes before it has started are buffered and sent once it runs
}

void AugmentationWorker::send(const QJsonObject &request)
{
    m_inFlight = idOf(request);
    if (!m_process || m_process->state() == QProcess::NotRunning)
        startProcess();
    if (m_process->state() != QProcess::NotRunning)  // not when it failed to start at once
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
        answer(id, reply);
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

void AugmentationWorker::answer(quint64 id, const QJsonObject &reply)
{
    if (m_warmUps.remove(id))
        Q_EMIT warmedUp(reply);
    else
        Q_EMIT replied(id, reply);
}

void AugmentationWorker::answerWithError(quint64 id, const QString &message)
{
    answer(id, QJsonObject{{QStringLiteral("id"), qint64(id)}, {QStringLiteral("error"), message}});
}

} // namespace ty
