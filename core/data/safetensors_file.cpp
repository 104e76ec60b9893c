#include "safetensors_file.h"

#include "pickled_file.h"
#include "regular_file.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QtEndian>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace ty {

namespace {

struct DTypeInfo {
    TensorDType dtype;
    const char *name;
    int size;
};

constexpr std::array<DTypeInfo, 10> kDTypes{{
    {TensorDType::F64, "F64", 8}, {TensorDType::F32, "F32", 4}, {TensorDType::F16, "F16", 2},
    {TensorDType::BF16, "BF16", 2}, {TensorDType::I64, "I64", 8}, {TensorDType::I32, "I32", 4},
    {TensorDType::I16, "I16", 2}, {TensorDType::I8, "I8", 1}, {TensorDType::U8, "U8", 1},
    {TensorDType::Bool, "BOOL", 1},
}};

const DTypeInfo *dtypeNamed(const QString &name)
{
    for (const DTypeInfo &info : kDTypes)
        if (name == QLatin1String(info.name))
            return &info;
    return nullptr;
}

// A JSON number that is a whole number in [0, 2^53]; -1 otherwise.
qint64 wholeNumber(const QJsonValue &v)
{
    if (!v.isDouble())
        return -1;
    const double d = v.toDouble();
    if (!(d >= 0) || d > 9007199254740992.0 || std::floor(d) != d)
        return -1;
    return qint64(d);
}

struct Range {
    qint64 begin, end;
    int index;
};

} // namespace

QString tensorDTypeName(TensorDType dtype)
{
    for (const DTypeInfo &info : kDTypes)
        if (info.dtype == dtype)
            return QString::fromLatin1(info.name);
    return QString();
}

int tensorDTypeSize(TensorDType dtype)
{
    for (const DTypeInfo &info : kDTypes)
        if (info.dtype == dtype)
            return info.size;
    return 0;
}

qint64 NamedTensor::elementCount() const
{
    qint64 n = 1;
    for (qint64 d : shape)
        n *= d;
    return n;
}

QString NamedTensor::shapeText() const
{
    QStringList parts;
    for (qint64 d : shape)
        parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

bool tensorIsFinite(const NamedTensor &tensor)
{
    // An IEEE value is NaN or infinite when its exponent bits are all ones; the data is little-endian.
    const auto allFiniteOf = [&](auto word, quint64 exponentMask) {
        using Word = decltype(word);
        const qsizetype count = tensor.data.size() / qsizetype(sizeof(Word));
        for (qsizetype i = 0; i < count; ++i) {
            const Word w = qFromLittleEndian<Word>(tensor.data.constData() + i * qsizetype(sizeof(Word)));
            if ((quint64(w) & exponentMask) == exponentMask)
                return false;
        }
        return true;
    };
    switch (tensor.dtype) {
    case TensorDType::F64: return allFiniteOf(quint64(), 0x7FF0000000000000ull);
    case TensorDType::F32: return allFiniteOf(quint32(), 0x7F800000ull);
    case TensorDType::F16: return allFiniteOf(quint16(), 0x7C00ull);
    case TensorDType::BF16: return allFiniteOf(quint16(), 0x7F80ull);
    default: return true;
    }
}

const NamedTensor *TensorFile::find(const QString &name) const
{
    for (const NamedTensor &t : tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

QByteArray encodeSafetensors(const TensorFile &file)
{
    QJsonObject header;
    qint64 offset = 0;
    for (const NamedTensor &t : file.tensors) {
        QJsonArray shape;
        for (qint64 d : t.shape)
            shape.append(double(d));
        header.insert(t.name, QJsonObject{{QStringLiteral("dtype"), tensorDTypeName(t.dtype)},
                                          {QStringLiteral("shape"), shape},
                                          {QStringLiteral("data_offsets"), QJsonArray{double(offset), double(offset + t.data.size())}}});
        offset += t.data.size();
    }
    if (!file.metadata.isEmpty()) {
        QJsonObject metadata;
        for (auto it = file.metadata.cbegin(); it != file.metadata.cend(); ++it)
            metadata.insert(it.key(), it.value());
        header.insert(QStringLiteral("__metadata__"), metadata);
    }
    QByteArray json = QJsonDocument(header).toJson(QJsonDocument::Compact);
    json.append(QByteArray((8 - json.size() % 8) % 8, ' '));  // the data starts 8-byte aligned
    QByteArray bytes(8, '\0');
    qToLittleEndian<quint64>(quint64(json.size()), bytes.data());
    bytes.reserve(8 + json.size() + offset);
    bytes.append(json);
    for (const NamedTensor &t : file.tensors)
        bytes.append(t.data);
    return bytes;
}

namespace {

// A parsed header: the tensors without their data, and where each one's data lies (sorted by offset).
struct ParsedHeader {
    TensorFile file;
    std::vector<Range> ranges;
};

// Parses a header of `headerBytes` that `dataSize` bytes of data follow; checks every range against them.
Result<ParsedHeader> parseHeader(const QByteArray &headerBytes, qint64 dataSize, const QString &path)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(headerBytes, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject())
        return Error::inFile(path, QStringLiteral("not a safetensors file: its header is not a JSON object (%1)")
                                       .arg(parseError.error != QJsonParseError::NoError ? parseError.errorString() : QStringLiteral("not an object")));
    const QJsonObject header = doc.object();

    ParsedHeader parsed;
    TensorFile &file = parsed.file;
    std::vector<Range> &ranges = parsed.ranges;
    for (auto it = header.constBegin(); it != header.constEnd(); ++it) {
        const QString name = it.key();
        if (name == QLatin1String("__metadata__")) {
            if (!it.value().isObject())
                return Error::inFile(path, QStringLiteral("\"__metadata__\" is not an object of strings"));
            const QJsonObject metadata = it.value().toObject();
            for (auto m = metadata.constBegin(); m != metadata.constEnd(); ++m) {
                if (!m.value().isString())
                    return Error::inFile(path, QStringLiteral("\"__metadata__\" entry \"%1\" is not a string").arg(m.key()));
                file.metadata.insert(m.key(), m.value().toString());
            }
            continue;
        }
        const QJsonObject entry = it.value().toObject();
        const DTypeInfo *dtype = dtypeNamed(entry.value(QStringLiteral("dtype")).toString());
        if (!dtype)
            return Error::inFile(path, QStringLiteral("tensor \"%1\": unknown or missing dtype").arg(name), name);
        NamedTensor tensor;
        tensor.name = name;
        tensor.dtype = dtype->dtype;
        const QJsonArray shape = entry.value(QStringLiteral("shape")).toArray();
        if (!entry.value(QStringLiteral("shape")).isArray() || shape.size() > 16)
            return Error::inFile(path, QStringLiteral("tensor \"%1\": missing or absurd shape").arg(name), name);
        qint64 bytesNeeded = dtype->size;
        bool overflow = false;
        for (const QJsonValue &d : shape) {
            const qint64 extent = wholeNumber(d);
            if (extent < 0)
                return Error::inFile(path, QStringLiteral("tensor \"%1\": shape entries must be whole numbers >= 0").arg(name), name);
            if (extent > 0 && bytesNeeded > std::numeric_limits<qint64>::max() / extent)
                overflow = true;
            else
                bytesNeeded *= extent;
            tensor.shape.append(extent);
        }
        const QJsonArray offsets = entry.value(QStringLiteral("data_offsets")).toArray();
        const qint64 begin = offsets.size() == 2 ? wholeNumber(offsets.at(0)) : -1;
        const qint64 end = offsets.size() == 2 ? wholeNumber(offsets.at(1)) : -1;
        if (begin < 0 || end < begin || end > dataSize)
            return Error::inFile(path, QStringLiteral("tensor \"%1\": data_offsets [%2, %3] lie outside the %4 bytes of data (truncated?)")
                                           .arg(name).arg(begin).arg(end).arg(dataSize), name);
        if (overflow || end - begin != bytesNeeded)
            return Error::inFile(path, QStringLiteral("tensor \"%1\": %2 %3 needs %4 bytes, its data_offsets give %5")
                                           .arg(name, tensorDTypeName(tensor.dtype), tensor.shapeText())
                                           .arg(overflow ? QStringLiteral("more than 2^63") : QString::number(bytesNeeded))
                                           .arg(end - begin), name);
        ranges.push_back(Range{begin, end, int(file.tensors.size())});
        file.tensors.append(tensor);
    }
    std::sort(ranges.begin(), ranges.end(), [](const Range &a, const Range &b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    qint64 expected = 0;
    for (const Range &r : ranges) {
        if (r.begin != expected)
            return Error::inFile(path, QStringLiteral("tensor \"%1\": its data %2 at byte %3 (the tensors' data must follow one another without gaps or overlaps)")
                                           .arg(file.tensors.at(r.index).name, r.begin < expected ? QStringLiteral("overlaps another's") : QStringLiteral("leaves a gap"))
                                           .arg(r.begin), file.tensors.at(r.index).name);
        expected = r.end;
    }
    if (expected != dataSize)
        return Error::inFile(path, QStringLiteral("%1 bytes after the last tensor's data").arg(dataSize - expected));
    return parsed;
}

// The 8-byte header length at the start of a file of `fileSize` bytes, checked against it.
Result<qint64> headerLength(const char *first8, qint64 fileSize, const QString &path)
{
    if (fileSize < 8)
        return Error::inFile(path, QStringLiteral("not a safetensors file: %1 bytes, shorter than its 8-byte header length").arg(fileSize));
    const quint64 headerSize = qFromLittleEndian<quint64>(first8);
    if (headerSize > quint64(kMaxSafetensorsHeader) || headerSize > quint64(fileSize - 8))
        return Error::inFile(path, QStringLiteral("not a safetensors file (or truncated): its header claims %1 bytes, the file has %2")
                                       .arg(headerSize).arg(fileSize - 8));
    return qint64(headerSize);
}

// Moves each tensor's data out of `data` (the bytes after the header) and puts the tensors in file order.
TensorFile withData(ParsedHeader parsed, const QByteArray &data, qint64 dataOffset)
{
    TensorFile &file = parsed.file;
    for (const Range &r : parsed.ranges)
        file.tensors[r.index].data = data.mid(qsizetype(dataOffset + r.begin), qsizetype(r.end - r.begin));
    QList<NamedTensor> inFileOrder;  // the order of their data in the file
    for (const Range &r : parsed.ranges)
        inFileOrder.append(file.tensors.at(r.index));
    file.tensors = inFileOrder;
    return std::move(file);
}

} // namespace

Result<TensorFile> decodeSafetensors(const QByteArray &bytes, const QString &path)
{
    if (const Status pickled = refusePickledFile(path, bytes.left(9)); !pickled)
        return pickled.error();
    const Result<qint64> headerSize = headerLength(bytes.constData(), bytes.size(), path);
    if (!headerSize)
        return headerSize.error();
    const qint64 dataStart = 8 + headerSize.value();
    Result<ParsedHeader> parsed = parseHeader(bytes.mid(8, qsizetype(headerSize.value())), bytes.size() - dataStart, path);
    if (!parsed)
        return parsed.error();
    return withData(std::move(parsed).value(), bytes, dataStart);
}

namespace {

// Opens `path` and reads and checks its header against the file's size, leaving `file` at the start of the data.
// What the header claims is checked before any data is read, so a huge or sparse file that is not what it claims
// costs a few bytes of reading, not its size in memory.
Result<ParsedHeader> openAndParseHeader(QFile &file, qint64 maxBytes)
{
    const QString path = file.fileName();
    if (Status regular = requireRegularFile(path); !regular)
        return regular.error();
    if (!file.open(QIODevice::ReadOnly))
        return Error::inFile(path, QStringLiteral("cannot read: %1").arg(file.errorString()));
    const qint64 fileSize = file.size();
    if (fileSize > maxBytes)
        return Error::inFile(path, QStringLiteral("%1 bytes is more than the %2 bytes accepted").arg(fileSize).arg(maxBytes));
    char first8[8] = {};
    if (file.read(first8, 8) != std::min<qint64>(8, fileSize))
        return Error::inFile(path, QStringLiteral("cannot read: %1").arg(file.errorString()));
    // A pickle is refused by its first bytes, before anything of it is read as a header.
    if (const Status pickled = refusePickledFile(path, QByteArray(first8, int(std::min<qint64>(8, fileSize))) + file.peek(1)); !pickled)
        return pickled.error();
    const Result<qint64> headerSize = headerLength(first8, fileSize, path);
    if (!headerSize)
        return headerSize.error();
    const QByteArray header = file.read(headerSize.value());
    if (header.size() != headerSize.value())
        return Error::inFile(path, QStringLiteral("cannot read its header: the file changed or %1").arg(file.errorString()));
    return parseHeader(header, fileSize - 8 - headerSize.value(), path);
}

} // namespace

Status checkSafetensorsLayout(const QString &path)
{
    QFile file(path);
    const Result<ParsedHeader> parsed = openAndParseHeader(file, std::numeric_limits<qint64>::max());
    return parsed ? Status::success() : Status(parsed.error());
}

Result<TensorFile> readSafetensorsHeader(const QString &path)
{
    QFile file(path);
    Result<ParsedHeader> parsed = openAndParseHeader(file, std::numeric_limits<qint64>::max());
    if (!parsed)
        return parsed.error();
    ParsedHeader &header = parsed.value();
    QList<NamedTensor> inFileOrder;
    for (const Range &r : header.ranges)
        inFileOrder.append(header.file.tensors.at(r.index));
    header.file.tensors = inFileOrder;
    return std::move(header.file);
}

Result<TensorFile> readSafetensors(const QString &path, qint64 maxBytes)
{
    QFile file(path);
    Result<ParsedHeader> parsed = openAndParseHeader(file, maxBytes);
    if (!parsed)
        return parsed.error();
    const qint64 dataSize = file.size() - file.pos();
    const QByteArray data = file.read(dataSize + 1);
    if (data.size() != dataSize)
        return Error::inFile(path, QStringLiteral("the file changed while it was read (%1 bytes of data, expected %2)").arg(data.size()).arg(dataSize));
    return withData(std::move(parsed).value(), data, 0);
}

Status writeFileAtomically(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error::inFile(path, QStringLiteral("cannot write: %1").arg(file.errorString()));
    const qint64 written = file.write(bytes);
    if (written != bytes.size() || !file.commit()) {
        file.cancelWriting();
        return Error::inFile(path, QStringLiteral("cannot write: wrote %1 of %2 bytes (is the disk full?)")
                                       .arg(std::max<qint64>(0, written)).arg(bytes.size()));
    }
    return Status::success();
}

} // namespace ty
