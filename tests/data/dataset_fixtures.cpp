#include "dataset_fixtures.h"

#include <QCryptographicHash>
#include <QFile>

#include <zlib.h>

namespace fixtures {

QByteArray idxFile(uint8_t type, const std::vector<uint32_t> &dims, const QByteArray &data)
{
    QByteArray out;
    out.append(char(0)).append(char(0)).append(char(type)).append(char(dims.size()));
    for (const uint32_t dim : dims) {
        out.append(char((dim >> 24) & 0xff)).append(char((dim >> 16) & 0xff));
        out.append(char((dim >> 8) & 0xff)).append(char(dim & 0xff));
    }
    return out + data;
}

QByteArray ubyteIdx(const std::vector<uint32_t> &dims, const std::vector<uint8_t> &values)
{
    return idxFile(0x08, dims, QByteArray(reinterpret_cast<const char *>(values.data()), qsizetype(values.size())));
}

QByteArray gzip(const QByteArray &bytes)
{
    z_stream zs{};
    if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return QByteArray();
    QByteArray out(int(deflateBound(&zs, uLong(bytes.size()))) + 64, Qt::Uninitialized);
    zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(bytes.constData()));
    zs.avail_in = uInt(bytes.size());
    zs.next_out = reinterpret_cast<Bytef *>(out.data());
    zs.avail_out = uInt(out.size());
    const int rc = deflate(&zs, Z_FINISH);
    out.resize(qsizetype(zs.total_out));
    deflateEnd(&zs);
    return rc == Z_STREAM_END ? out : QByteArray();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(bytes) == bytes.size();
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QByteArray sha256Hex(const QList<QByteArray> &parts)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const QByteArray &part : parts)
        hash.addData(part);
    return hash.result().toHex();
}

ty::DatasetRequest request(const QString &blockType, const QJsonObject &params, const QString &baseDir,
                           const QString &nodeId)
{
    ty::DatasetRequest r;
    r.blockType = blockType;
    r.nodeId = nodeId;
    r.params = params;
    r.baseDir = baseDir;
    return r;
}

std::vector<uint8_t> imageValues(int count, int rows, int cols)
{
    std::vector<uint8_t> values;
    for (int i = 0; i < count; ++i)
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c)
                values.push_back(uint8_t((i * 7 + r * cols + c) % 256));
    return values;
}

std::vector<uint8_t> labelValues(int count, int classes)
{
    std::vector<uint8_t> values;
    for (int i = 0; i < count; ++i)
        values.push_back(uint8_t(i % classes));
    return values;
}

} // namespace fixtures
