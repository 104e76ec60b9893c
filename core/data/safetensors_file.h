#pragma once
// Tensor files in the safetensors format: an 8-byte little-endian header length, a JSON header giving each
// tensor's dtype, shape and byte range (plus an optional "__metadata__" map of strings), then the raw
// little-endian data. Checkpoints, weight exports and warm starts all use it. The format is data only:
// reading parses and checks, it never interprets. A pickled PyTorch file is refused by its first bytes
// (pickled_file.h). Every size the header claims is checked against the file
// before anything is allocated; ranges must tile the data exactly (no holes, no overlaps), as the format says.
// No LibTorch: the engine converts between these plain arrays and its tensors.

#include "error.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>

namespace ty {

enum class TensorDType { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool };

QString tensorDTypeName(TensorDType dtype);  // the format's spelling: "F32", "I64", "BOOL", ...
int tensorDTypeSize(TensorDType dtype);      // bytes per element

struct NamedTensor {
    QString name;
    TensorDType dtype = TensorDType::F32;
    QList<qint64> shape;  // empty for a scalar
    QByteArray data;      // little-endian, row-major, exactly elementCount() * tensorDTypeSize(dtype) bytes

    qint64 elementCount() const;
    QString shapeText() const;  // "[256, 784]"
};

// False when a floating-point tensor (F64, F32, F16, BF16) holds a NaN or an infinity; true for other dtypes.
bool tensorIsFinite(const NamedTensor &tensor);

struct TensorFile {
    QList<NamedTensor> tensors;      // in file order
    QMap<QString, QString> metadata; // "__metadata__"

    const NamedTensor *find(const QString &name) const;
};

// The largest header accepted (the format's reference reader uses the same bound).
constexpr qint64 kMaxSafetensorsHeader = 100 * 1000 * 1000;

// The bytes of a safetensors file holding `file` (tensors in the given order).
QByteArray encodeSafetensors(const TensorFile &file);

// Parses the bytes of a safetensors file; errors name `path` and the tensor at fault.
Result<TensorFile> decodeSafetensors(const QByteArray &bytes, const QString &path);

// Reads and parses `path`, which must be a regular file of at most `maxBytes` bytes. Its header is read and
// checked against the file's size first; the data is read only when the header accounts for every byte.
Result<TensorFile> readSafetensors(const QString &path, qint64 maxBytes = qint64(64) << 30);

// The header alone: every tensor's name, dtype and shape (in file order, `data` empty) and the metadata, after the
// checks of checkSafetensorsLayout(). Cheap whatever the file's size.
Result<TensorFile> readSafetensorsHeader(const QString &path);

// The checks readSafetensors() makes before it reads any data: a regular file whose header parses and whose
// tensors' data fill the rest of the file exactly. Reads only the header: cheap whatever the file's size.
Status checkSafetensorsLayout(const QString &path);

// Writes `bytes` to `path` atomically (a temporary file, then rename); the folder is created if missing.
Status writeFileAtomically(const QString &path, const QByteArray &bytes);

} // namespace ty
