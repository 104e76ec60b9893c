#include "tensorboard_event_file.h"

#include "tensorboard_events.h"

#include <QDir>
#include <QFileInfo>

namespace ty {

Result<std::unique_ptr<TensorBoardEventFile>> TensorBoardEventFile::create(const QString &folder, const QDateTime &created,
                                                                           const QString &host, qint64 restartStep)
{
    const QString absolute = QFileInfo(folder).absoluteFilePath();
    if (!QDir().mkpath(absolute))
        return Error::inFile(absolute, QStringLiteral("cannot create the folder for TensorBoard's event files"));
    std::unique_ptr<TensorBoardEventFile> file(new TensorBoardEventFile);
    const QString name = QDir(absolute).filePath(eventFileName(created, host));
    for (int suffix = 1; suffix < 1000; ++suffix) {
        file->m_file.setFileName(suffix == 1 ? name : QStringLiteral("%1.%2").arg(name).arg(suffix));
        // NewOnly: another file of that name (an earlier session's, an export's) is never written over.
        if (file->m_file.open(QIODevice::WriteOnly | QIODevice::NewOnly | QIODevice::Unbuffered))
            break;
        if (!file->m_file.exists())
            return Error::inFile(file->m_file.fileName(), QStringLiteral("cannot create the event file: %1").arg(file->m_file.errorString()));
    }
    if (!file->m_file.isOpen())
        return Error::inFile(name, QStringLiteral("cannot create the event file: too many files of that name"));
    const double wallTime = double(created.toMSecsSinceEpoch()) / 1000.0;
    QByteArray first = tfRecord(fileVersionEvent(wallTime));
    if (restartStep >= 0)
        first += tfRecord(sessionStartEvent(wallTime, restartStep));
    if (file->m_file.write(first) != first.size()) {
        const Error error = Error::inFile(file->m_file.fileName(), QStringLiteral("cannot write: %1").arg(file->m_file.errorString()));
        file->m_file.remove();
        return error;
    }
    return file;
}

TensorBoardEventFile::~TensorBoardEventFile() = default;

Status TensorBoardEventFile::append(double startSeconds, const MetricPoint *rows, size_t count)
{
    if (count == 0)
        return Status::success();
    m_buffer.resize(0);  // keeps its capacity
    appendScalarRecords(&m_buffer, startSeconds, rows, count);
    // A short write (the disk filled up during it) is followed by one for the rest, which fails with the reason.
    for (qsizetype written = 0; written < m_buffer.size();) {
        const qint64 wrote = m_file.write(m_buffer.constData() + written, m_buffer.size() - written);
        if (wrote <= 0)
            return Error::inFile(m_file.fileName(), QStringLiteral("cannot write: %1").arg(m_file.errorString()));
        written += qsizetype(wrote);
    }
    return Status::success();
}

QString TensorBoardEventFile::path() const { return m_file.fileName(); }

} // namespace ty
