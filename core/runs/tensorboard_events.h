#pragma once
// TensorBoard's event files, written without TensorFlow: TFRecord framing (a little-endian 64-bit length, its
// masked CRC-32C, the record, its masked CRC-32C) around `Event` protocol buffers, encoded by hand for the few
// fields used: wall_time, step, file_version, a Summary of scalar values (tag, simple_value) and a SessionLog's
// status. What TensorBoard, the Hugging Face Hub's metrics tab, W&B and Aim read.

#include "error.h"
#include "run_records.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>

#include <cstdint>

namespace ty {

// CRC-32C (Castagnoli) of `data`, and TFRecord's masked form of it.
uint32_t crc32c(const QByteArray &data);
uint32_t maskedCrc32c(const QByteArray &data);

// One TFRecord: the framing around `record`.
QByteArray tfRecord(const QByteArray &record);

// The serialised Event protos.
QByteArray fileVersionEvent(double wallTime);  // the first record of every file: file_version "brain.Event:2"
QByteArray scalarEvent(double wallTime, int64_t step, const QString &tag, float value);
// SessionLog START at `step`: TensorBoard drops the events it read before with a step of `step` or later (a run that
// went back to a checkpoint: what it had written after it is orphaned).
QByteArray sessionStartEvent(double wallTime, int64_t step);

// Appends the TFRecords of `count` rows' scalar events to `out`, the wall time of each `startSeconds` plus its time.
void appendScalarRecords(QByteArray *out, double startSeconds, const MetricPoint *rows, size_t count);

// The event file name TensorBoard looks for in a run's folder: events.out.tfevents.<seconds>.<host>.
QString eventFileName(const QDateTime &created, const QString &host);

// The folder of a run in a TensorBoard log folder, "3-Fashion-MNIST_MLP": the id keeps runs apart, the name (its
// first 60 characters, anything but letters, digits, '-' and '.' made '_') says which run it is.
QString tensorBoardRunFolderName(qint64 runId, const QString &runName);

// Writes `rows` (a run's metric rows, by step) into FOLDER/<event file name>, the wall time of each row being
// `started` plus its time; the folder is created. Returns the file's path.
Result<QString> writeTensorBoardEvents(const QString &folder, const QDateTime &started, const QString &host,
                                       const QList<MetricPoint> &rows);

} // namespace ty
