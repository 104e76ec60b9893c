#pragma once
// Fixture files for the dataset tests: IDX files (plain or gzipped), text files, requests.

#include "dataset_loader.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <cstdint>
#include <vector>

namespace fixtures {

// An IDX file: magic 00 00 type ndim, big-endian dims, then `data` as given (already big-endian).
QByteArray idxFile(uint8_t type, const std::vector<uint32_t> &dims, const QByteArray &data);
// An unsigned-byte IDX file with `values`.
QByteArray ubyteIdx(const std::vector<uint32_t> &dims, const std::vector<uint8_t> &values);
// `bytes` gzipped (a real gzip stream, as gzip(1) writes).
QByteArray gzip(const QByteArray &bytes);

// Writes `bytes` to `path`; fails the test (QVERIFY) when it cannot.
bool writeFile(const QString &path, const QByteArray &bytes);
QByteArray readFile(const QString &path);
QByteArray sha256Hex(const QList<QByteArray> &parts);

ty::DatasetRequest request(const QString &blockType, const QJsonObject &params, const QString &baseDir = QString(),
                           const QString &nodeId = QStringLiteral("data"));

// A tiny labelled image set: `count` images of rows x cols, pixel (i, r, c) = (i * 7 + r * cols + c) % 256,
// label i % classes.
std::vector<uint8_t> imageValues(int count, int rows, int cols);
std::vector<uint8_t> labelValues(int count, int classes);

} // namespace fixtures
