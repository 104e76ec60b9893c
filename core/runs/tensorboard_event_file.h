#pragma once
// A TensorBoard event file written while a run trains (the format: tensorboard_events.h): created once, before
// training, then appended to batch by batch. RunWriter's writer thread appends to it (RunWriter::setMetricSink), so
// the training thread never waits for it.
//
// Threads: one at a time (created on one thread, appended to on another after a hand-over is fine).

#include "error.h"
#include "run_records.h"

#include <QDateTime>
#include <QFile>
#include <QString>

#include <cstddef>
#include <memory>

namespace ty {

class TensorBoardEventFile {
public:
    // Creates `folder` (with its parents) and, in it, a new event file named for `created` and `host`
    // (eventFileName(), with ".2", ".3", ... after it while that name is taken: a resume within the same second)
    // holding its first record, file_version. With `restartStep` >= 0, a SessionLog START at that step follows:
    // TensorBoard then drops the events of the folder's earlier files from that step on (a resumed run's rows after
    // its checkpoint, which the run database dropped too). Never overwrites a file.
    static Result<std::unique_ptr<TensorBoardEventFile>> create(const QString &folder, const QDateTime &created,
                                                                 const QString &host, qint64 restartStep = -1);
    ~TensorBoardEventFile();
    TensorBoardEventFile(const TensorBoardEventFile &) = delete;
    TensorBoardEventFile &operator=(const TensorBoardEventFile &) = delete;

    // One scalar event for each of `count` rows, at wall time `startSeconds` plus the row's time, in one write handed
    // to the operating system (not synced to the disk). On failure (a full disk) the error names the file; the file
    // may then end in a partial record, where readers stop.
    Status append(double startSeconds, const MetricPoint *rows, size_t count);

    QString path() const;  // absolute

private:
    TensorBoardEventFile() = default;
    QFile m_file;
    QByteArray m_buffer;  // reused between appends
};

} // namespace ty
