#pragma once
// The augmentation previews' worker: one long-lived `trainyard-cli augment --serve` (app/cli/augment_serve.h) that
// keeps the data set and the compiled pipeline between previews, so that only the first preview pays for starting
// LibTorch and decoding the data set. Started on the first request, started again on the next request after it
// dies, killed when this object is destroyed (the inspector owns one for the app's lifetime).
// One request is in flight at a time; a request made meanwhile waits, and a newer one replaces it (the replaced
// request is answered at once with "superseded": true). Every request is answered once through replied(): the
// worker's reply, or an "error" when the worker cannot be started or stops while answering.
//
// Ownership: owns its process. Thread affinity: the GUI thread.

#include <QJsonObject>
#include <QObject>
#include <QPointer>

#include <optional>

class QProcess;

namespace ty {

class AugmentationWorker : public QObject {
    Q_OBJECT
public:
    explicit AugmentationWorker(const QString &program, QObject *parent = nullptr);
    ~AugmentationWorker() override;

    // Sends `request` (augment_serve.h's fields; its "id" is set here) and returns the id its reply will carry.
    quint64 request(QJsonObject request);
    QString program() const { return m_program; }
    // The worker process's id; 0 while none runs.
    qint64 processId() const;

Q_SIGNALS:
    void replied(quint64 id, const QJsonObject &reply);

private:
    void send(const QJsonObject &request);
    void readReplies();
    void stopped(const QString &why);
    void answerWithError(quint64 id, const QString &message);

    QString m_program;
    QPointer<QProcess> m_process;
    QByteArray m_buffer;                    // stdout not yet a whole line
    quint64 m_nextId = 1;
    std::optional<quint64> m_inFlight;      // the id sent and not yet answered
    std::optional<QJsonObject> m_waiting;   // the newest request made while one was in flight
};

} // namespace ty
