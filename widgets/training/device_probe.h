#pragma once
// What the training engine can use on this machine (is there a CUDA device?), asked once per app session
// from a worker process, `trainyard-cli devices --json`, so that the desktop app never loads LibTorch itself.
// The answer arrives asynchronously (loading LibTorch takes about half a second); until then it is unknown.
// Later probes of the same process reuse the first answer.
//
// Ownership: a QObject owned by its parent. Thread affinity: the GUI thread.

#include <QObject>
#include <QString>

#include <optional>

class QProcess;

namespace ty {

class DeviceProbe : public QObject {
    Q_OBJECT
public:
    explicit DeviceProbe(QObject *parent = nullptr);
    ~DeviceProbe() override;  // a question still under way is ended: the window is closing

    // Starts `workerPath devices --json` unless an answer is known or a question is under way.
    void start(const QString &workerPath);
    std::optional<bool> cudaAvailable() const { return m_cuda; }
    QString torchVersion() const { return m_torchVersion; }

    // Takes the worker's JSON answer ({"cuda": bool, "torch_version": ...}); false when it is not one.
    bool takeAnswer(const QByteArray &json);

Q_SIGNALS:
    void answered(bool cudaAvailable);

private:
    QProcess *m_process = nullptr;
    std::optional<bool> m_cuda;
    QString m_torchVersion;
};

} // namespace ty
