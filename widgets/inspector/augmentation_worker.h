#pragma once
// The augmentation previews' worker: one long-lived `trainyard-cli augment --serve` (app/cli/augment_serve.h) that
// keeps the data set and the compiled pipeline between previews, so that only the first preview pays for starting
// LibTorch and decoding the data set. Started on the first request or warm-up, started again on the next one after
// it dies, killed when this object is destroyed (the inspector owns one for the app's lifetime).
// A warm-up (warmUp(): the inspector sends one when it shows a transform node) starts the worker and has it load the
// data set and compile the preset before any preview is asked for, so that the first preview costs what a Reroll
// does; its reply goes to warmedUp(), never to replied(), and it never replaces a preview.
// One request is in flight at a time; a request made meanwhile waits, and a newer one replaces it (the replaced
// request is answered at once with "superseded": true; a waiting warm-up is dropped silently). Every request is
// answered once through replied(): the worker's reply, or an "error" when the worker cannot be started or stops
// while answering (the next request starts a new one).
//
// Ownership: owns its process. Thread affinity: the GUI thread.

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QSet>

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
    // Starts the worker if none runs and has it answer `request` (a preview's, its reply drawn nowhere) when it is
    // idle: it loads the request's data set, compiles its preset and runs its first forward pass of this size.
    // Dropped when a preview is already waiting (it warms the worker as well); replaces a waiting warm-up.
    void warmUp(QJsonObject request);
    // How many worker processes were started so far (tests and benchmarks check that a preview starts none).
    int starts() const { return m_starts; }
    QString program() const { return m_program; }
    // The worker process's id; 0 while none runs.
    qint64 processId() const;

Q_SIGNALS:
    void replied(quint64 id, const QJsonObject &reply);
    // A warm-up's reply: the worker's (with "error" when the preset cannot be previewed), or an "error" when it
    // could not start or stopped.
    void warmedUp(const QJsonObject &reply);

private:
    void send(const QJsonObject &request);
    void readReplies();
    void stopped(const QString &why);
    void answer(quint64 id, const QJsonObject &reply);
    void answerWithError(quint64 id, const QString &message);
    void startProcess();

    QString m_program;
    QPointer<QProcess> m_process;
    QByteArray m_buffer;                    // stdout not yet a whole line
    quint64 m_nextId = 1;
    std::optional<quint64> m_inFlight;      // the id sent and not yet answered
    std::optional<QJsonObject> m_waiting;   // the newest request made while one was in flight
    QSet<quint64> m_warmUps;                // the ids of warm-ups sent or waiting
    int m_starts = 0;
};

} // namespace ty
