#pragma once
// IDX files (the MNIST format), plain or gzipped: a 4-byte magic 00 00 <type> <ndim>, ndim big-endian
// uint32 dimensions, then the big-endian data. Every Error names the file (Error::file); the caller adds
// the node and field.

#include "dataset_arrays.h"
#include "error.h"

#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

namespace ty {

class Sha256;

class FileByteStream;

enum class IdxType : uint8_t {
    UByte = 0x08,
    SByte = 0x09,
    Short = 0x0B,
    Int = 0x0C,
    Float = 0x0D,
    Double = 0x0E,
};

constexpr int64_t kIdxMaxElements = int64_t(1) << 31;  // more in one file is refused as absurd
constexpr int kIdxMaxDimensions = 16;

struct IdxHeader {
    IdxType type = IdxType::UByte;
    std::vector<int64_t> dims;   // dims[0] is the number of samples
    int64_t elementCount = 0;    // product of dims
    int elementSize = 1;         // bytes per element
    int64_t headerSize = 0;      // 4 + 4 * ndim
    bool gzipped = false;

    int64_t count() const { return dims.empty() ? 0 : dims[0]; }
    int64_t dataBytes() const { return elementCount * elementSize; }
};

// Reads and checks only the header (decompressing just its bytes when gzipped).
Result<IdxHeader> readIdxHeader(const QString &path);

// A whole IDX file. Unsigned bytes stay bytes; every other type is converted to float.
struct IdxArray {
    IdxHeader header;
    std::vector<uint8_t> bytes;   // type UByte
    std::vector<float> floats;    // any other type
};

// Reads the header and data, streaming straight into the array. `hash` (optional) receives every stored
// byte of the file, to its end. Refuses absurd headers before allocating; a short file is "truncated".
Result<IdxArray> readIdxFile(const QString &path, Sha256 *hash = nullptr);

// An IDX file's samples read a few at a time, as floats (bytes as they are, other types converted): memory is
// what one read asks for, whatever the file holds (predict on a million images). Not thread-safe.
class IdxSampleReader {
public:
    IdxSampleReader();
    ~IdxSampleReader();
    IdxSampleReader(const IdxSampleReader &) = delete;
    IdxSampleReader &operator=(const IdxSampleReader &) = delete;

    Status open(const QString &path);  // reads and checks the header
    const IdxHeader &header() const { return m_header; }
    int64_t valuesPerSample() const;
    // Appends up to `count` samples' values to `out`; returns how many samples were read (0 at the end). A file
    // that ends before its header's count is "truncated"; the last read also checks a gzip stream to its end.
    Result<int64_t> read(int64_t count, std::vector<float> &out);

private:
    std::unique_ptr<FileByteStream> m_stream;
    IdxHeader m_header;
    QString m_path;
    int64_t m_read = 0;
    std::vector<uint8_t> m_raw;
};

// The per-sample shape of samples with these file dims: {1, H, W} for 3-D files (images are
// [channels, height, width]), {D} for 2-D files, {1} for 1-D files, dims[1..] otherwise.
std::vector<int64_t> idxSampleShape(const std::vector<int64_t> &dims);

// The samples of an IDX array; byte samples get scale 1/255 when `scaleBytes`. Moves the data out.
SampleArray idxToSamples(IdxArray &&array, bool scaleBytes);

// The class labels of an IDX labels file: 1-D (or N x 1), whole numbers >= 0. Errors name `path`.
Result<std::vector<int64_t>> idxToLabels(const IdxArray &array, const QString &path);

} // namespace ty
