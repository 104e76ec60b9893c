#include "device_probe.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTimer>

namespace ty {

namespace {
// The answer is the same for every window of the process: asked once, kept for the session.
QByteArray sessionAnswer;
} // namespace

DeviceProbe::DeviceProbe(QObject *parent) : QObject(parent) {}

DeviceProbe::~DeviceProbe()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(1000);
    }
}

void DeviceProbe::start(const QString &workerPath)
{
    if (m_cuda.has_value() || m_process)
        return;
    if (!sessionAnswer.isEmpty()) {
        QTimer::singleShot(0, this, [this] { takeAnswer(sessionAnswer); });
        return;
    }
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::SeparateChannels);
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        const QByteArray out = m_process->readAllStandardOutput();
        m_process->deleteLater();
        m_process = nullptr;
        if (status == QProcess::NormalExit && code == 0)
            takeAnswer(out);
    });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart && m_process) {  // no worker: the answer stays unknown
            m_process->deleteLater();
            m_process = nullptr;
        }
    });
    m_process->start(workerPath, {QStringLiteral("devices"), QStringLiteral("--json")});
}

bool DeviceProbe::takeAnswer(const QByteArray &json)
{
    const QJsonObject answer = QJsonDocument::fromJson(json).object();
    if (!answer.value(QStringLiteral("cuda")).isBool())
        return false;
    sessionAnswer = json;
    m_cuda = answer.value(QStringLiteral("cuda")).toBool();
    m_torchVersion = answer.value(QStringLiteral("torch_version")).toString();
    Q_EMIT answered(*m_cuda);
    return true;
}

} // namespace ty
