#include "idx_reader.h"

#include "file_byte_stream.h"
#include "sha256.h"

#include <cmath>
#include <cstring>

namespace ty {

namespace {

// Deflate cannot expand data more than about 1032 times: a gzipped file claiming more is refused before
// anything is allocated.
constexpr int64_t kMaxDeflateRatio = 1032;

bool knownType(uint8_t code)
{
    switch (code) {
    case 0x08: case 0x09: case 0x0B: case 0x0C: case 0x0D: case 0x0E:
        return true;
    default:
        return false;
    }
}

int typeSize(IdxType type)
{
    switch (type) {
    case IdxType::UByte: case IdxType::SByte: return 1;
    case IdxType::Short: return 2;
    case IdxType::Int: case IdxType::Float: return 4;
    case IdxType::Double: return 8;
    }
    return 1;
}

uint32_t bigEndian32(const uint8_t *p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

QString dimsText(const std::vector<int64_t> &dims)
{
    QStringList parts;
    for (const int64_t dim : dims)
        parts << QString::number(dim);
    return parts.join(QStringLiteral(" x "));
}

// Reads the header from an open stream.
Result<IdxHeader> parseHeader(FileByteStream &stream, const QString &path)
{
    uint8_t magic[4];
    const Result<qint64> got = stream.read(reinterpret_cast<char *>(magic), 4);
    if (!got)
        return got.error();
    if (got.value() < 4)
        return Error::inFile(path, QStringLiteral("too short to be an IDX file (%1 bytes)").arg(got.value()));
    if (magic[0] != 0 || magic[1] != 0)
        return Error::inFile(path, QStringLiteral("not an IDX file: bad magic number 0x%1")
                                       .arg(QString::number(bigEndian32(magic), 16).rightJustified(8, QLatin1Char('0'))));
    if (!knownType(magic[2]))
        return Error::inFile(path, QStringLiteral("unsupported IDX element type 0x%1 (expected 08, 09, 0B, 0C, 0D or 0E)")
                                       .arg(QString::number(magic[2], 16).rightJustified(2, QLatin1Char('0'))));
    const int ndim = magic[3];
    if (ndim == 0 || ndim > kIdxMaxDimensions)
        return Error::inFile(path, QStringLiteral("IDX header has %1 dimensions (expected 1 to %2)").arg(ndim).arg(kIdxMaxDimensions));

    uint8_t dimBytes[4 * kIdxMaxDimensions];
    const Result<qint64> gotDims = stream.read(reinterpret_cast<char *>(dimBytes), 4 * ndim);
    if (!gotDims)
        return gotDims.error();
    if (gotDims.value() < 4 * ndim)
        return Error::inFile(path, QStringLiteral("truncated: the IDX header needs %1 bytes, found %2")
                                       .arg(4 + 4 * ndim).arg(4 + gotDims.value()));

    IdxHeader header;
    header.type = IdxType(magic[2]);
    header.elementSize = typeSize(header.type);
    header.headerSize = 4 + 4 * ndim;
    header.gzipped = stream.isGzip();
    header.elementCount = 1;
    bool absurd = false;
    for (int i = 0; i < ndim; ++i) {
        const int64_t dim = bigEndian32(dimBytes + 4 * i);
        header.dims.push_back(dim);
        if (dim > 0 && header.elementCount > kIdxMaxElements / dim)
            absurd = true;
        else
            header.elementCount *= dim;
    }
    if (absurd || header.elementCount > kIdxMaxElements)
        return Error::inFile(path, QStringLiteral("absurd IDX dimensions %1: more than %2 elements in one file")
                                       .arg(dimsText(header.dims)).arg(kIdxMaxElements));

    const int64_t stored = stream.storedSize();
    if (!header.gzipped) {
        const int64_t available = std::max<int64_t>(stored - header.headerSize, 0);
        if (available < header.dataBytes())
            return Error::inFile(path, QStringLiteral("truncated: expected %1 bytes of data, found %2")
                                           .arg(header.dataBytes()).arg(available));
    } else if (header.dataBytes() > stored * kMaxDeflateRatio) {
        return Error::inFile(path, QStringLiteral("truncated: expected %1 bytes of data, more than a %2-byte gzip file can hold")
                                       .arg(header.dataBytes()).arg(stored));
    }
    return header;
}

template <typename T>
T loadBigEndian(const uint8_t *p)
{
    uint8_t swapped[sizeof(T)];
    for (size_t i = 0; i < sizeof(T); ++i)
        swapped[i] = p[sizeof(T) - 1 - i];
    T value;
    std::memcpy(&value, swapped, sizeof(T));
    return value;
}

void convertToFloats(IdxType type, const uint8_t *p, size_t n, float *out)
{
    switch (type) {
    case IdxType::UByte:
        for (size_t i = 0; i < n; ++i) out[i] = float(p[i]);
        break;
    case IdxType::SByte:
        for (size_t i = 0; i < n; ++i) out[i] = float(int8_t(p[i]));
        break;
    case IdxType::Short:
        for (size_t i = 0; i < n; ++i) out[i] = float(loadBigEndian<int16_t>(p + 2 * i));
        break;
    case IdxType::Int:
        for (size_t i = 0; i < n; ++i) out[i] = float(loadBigEndian<int32_t>(p + 4 * i));
        break;
    case IdxType::Float:
        for (size_t i = 0; i < n; ++i) out[i] = loadBigEndian<float>(p + 4 * i);
        break;
    case IdxType::Double:
        for (size_t i = 0; i < n; ++i) out[i] = float(loadBigEndian<double>(p + 8 * i));
        break;
    }
}

} // namespace

Result<IdxHeader> readIdxHeader(const QString &path)
{
    FileByteStream stream;
    if (const Status opened = stream.open(path); !opened)
        return opened.error();
    return parseHeader(stream, path);
}

Result<IdxArray> readIdxFile(const QString &path, Sha256 *hash)
{
    FileByteStream stream;
    if (const Status opened = stream.open(path, hash); !opened)
        return opened.error();
    Result<IdxHeader> header = parseHeader(stream, path);
    if (!header)
        return header.error();

    IdxArray array;
    array.header = std::move(header).value();
    const int64_t expected = array.header.dataBytes();
    // A plain file's size was checked against the header; a gzip stream's real length is only known by
    // decoding it, so its data is read in chunks and memory grows with what the file really holds, not with
    // what its header claims.
    std::vector<uint8_t> raw;
    const int64_t chunk = array.header.gzipped ? int64_t(64) << 20 : expected;
    int64_t got = 0;
    while (got < expected) {
        const int64_t want = std::min(chunk, expected - got);
        raw.resize(size_t(got + want));
        const Result<qint64> read = stream.read(reinterpret_cast<char *>(raw.data() + got), want);
        if (!read)
            return read.error();
        got += read.value();
        if (read.value() < want)
            break;
    }
    if (got < expected)
        return Error::inFile(path, QStringLiteral("truncated: expected %1 bytes of data, found %2").arg(expected).arg(got));
    if (const Status rest = stream.finish(); !rest)
        return rest.error();

    if (array.header.type == IdxType::UByte) {
        array.bytes = std::move(raw);
    } else {
        array.floats.resize(size_t(array.header.elementCount));
        convertToFloats(array.header.type, raw.data(), array.floats.size(), array.floats.data());
    }
    return array;
}

IdxSampleReader::IdxSampleReader() = default;
IdxSampleReader::~IdxSampleReader() = default;

Status IdxSampleReader::open(const QString &path)
{
    m_path = path;
    m_read = 0;
    m_stream = std::make_unique<FileByteStream>();
    if (const Status opened = m_stream->open(path); !opened)
        return opened;
    Result<IdxHeader> header = parseHeader(*m_stream, path);
    if (!header)
        return header.error();
    m_header = std::move(header).value();
    return Status::success();
}

int64_t IdxSampleReader::valuesPerSample() const
{
    return m_header.count() > 0 ? m_header.elementCount / m_header.count() : 0;
}

Result<int64_t> IdxSampleReader::read(int64_t count, std::vector<float> &out)
{
    const int64_t samples = std::min(count, m_header.count() - m_read);
    if (samples <= 0)
        return int64_t(0);
    const int64_t values = samples * valuesPerSample();
    const int64_t bytes = values * m_header.elementSize;
    m_raw.resize(size_t(bytes));
    const Result<qint64> got = m_stream->read(reinterpret_cast<char *>(m_raw.data()), bytes);
    if (!got)
        return got.error();
    if (got.value() < bytes)
        return Error::inFile(m_path, QStringLiteral("truncated: expected %1 bytes of data, found %2")
                                         .arg(m_header.dataBytes()).arg(m_read * valuesPerSample() * m_header.elementSize + got.value()));
    const size_t at = out.size();
    out.resize(at + size_t(values));
    convertToFloats(m_header.type, m_raw.data(), size_t(values), out.data() + at);
    m_read += samples;
    if (m_read == m_header.count()) {
        if (const Status rest = m_stream->finish(); !rest)
            return rest.error();
        m_raw = {};
    }
    return samples;
}

std::vector<int64_t> idxSampleShape(const std::vector<int64_t> &dims)
{
    if (dims.size() <= 1)
        return {1};
    if (dims.size() == 2)
        return {dims[1]};
    if (dims.size() == 3)
        return {1, dims[1], dims[2]};
    return std::vector<int64_t>(dims.begin() + 1, dims.end());
}

SampleArray idxToSamples(IdxArray &&array, bool scaleBytes)
{
    SampleArray samples;
    samples.sampleShape = idxSampleShape(array.header.dims);
    samples.count = array.header.count();
    if (array.header.type == IdxType::UByte) {
        samples.bytes = std::move(array.bytes);
        samples.isFloat = false;
        samples.scale = scaleBytes ? 1.0f / 255.0f : 1.0f;
    } else {
        samples.floats = std::move(array.floats);
        samples.isFloat = true;
    }
    return samples;
}

Result<std::vector<int64_t>> idxToLabels(const IdxArray &array, const QString &path)
{
    const std::vector<int64_t> &dims = array.header.dims;
    if (!(dims.size() == 1 || (dims.size() == 2 && dims[1] == 1)))
        return Error::inFile(path, QStringLiteral("a labels file must have one dimension, this one has %1 (%2)")
                                       .arg(dims.size()).arg(dimsText(dims)));
    const size_t n = size_t(array.header.count());
    std::vector<int64_t> labels(n);
    if (array.header.type == IdxType::UByte) {
        for (size_t i = 0; i < n; ++i)
            labels[i] = array.bytes[i];
        return labels;
    }
    for (size_t i = 0; i < n; ++i) {
        const float value = array.floats[i];
        if (!(value >= 0.0f) || value != std::floor(value) || value > 16777216.0f)
            return Error::inFile(path, QStringLiteral("label %1 at index %2 is not a class index (a whole number from 0)")
                                           .arg(double(value)).arg(i));
        labels[i] = int64_t(value);
    }
    return labels;
}

} // namespace ty
