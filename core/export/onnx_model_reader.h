#pragma once
// An ONNX file as plain values, for the import (onnx_import.h): its nodes with their attributes, its initializers
// and Constant tensors as float or int64 arrays, its inputs and outputs with their static shapes. The file is
// untrusted: its size, node count, tensor ranks and element counts are bounded, every tensor's data is checked
// against its shape before it is copied, and weights kept in external files are refused (nothing but the given
// bytes is read). The ONNX protobuf classes stay in the .cpp.

#include "error.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <vector>

namespace ty {

constexpr qint64 kMaxOnnxFileBytes = (qint64(1) << 31) - 1;  // protobuf's limit on one message
constexpr int kMaxOnnxNodes = 100000;
constexpr int kMaxOnnxRank = 8;
constexpr qint64 kMaxOnnxTensorElements = qint64(1) << 30;

struct OnnxTensor {
    enum class Type { Float, Int64, Unsupported };
    QString name;
    Type type = Type::Unsupported;
    QString typeName;               // ONNX's name of its data type: "FLOAT", "INT64", "BOOL", ...
    std::vector<qint64> dims;
    std::vector<float> floats;      // Type::Float (FLOAT and DOUBLE files)
    std::vector<qint64> ints;       // Type::Int64 (INT64 and INT32 files)

    qint64 elementCount() const;
    QString shapeText() const;      // "[64, 3, 7, 7]"
};

struct OnnxAttributeValue {
    enum class Kind { Int, Float, Ints, Floats, String, Tensor, Other };
    QString name;
    Kind kind = Kind::Other;
    qint64 intValue = 0;
    float floatValue = 0;
    std::vector<qint64> ints;
    std::vector<float> floats;
    QString text;
    OnnxTensor tensor;
};

struct OnnxNodeView {
    QString name;       // may be empty
    QString opType;
    QString domain;     // "" for the default ONNX domain
    QStringList inputs; // an empty name is an optional input left out
    QStringList outputs;
    QList<OnnxAttributeValue> attributes;

    const OnnxAttributeValue *attribute(const QString &attributeName) const;  // nullptr when not given
    QString label() const;  // the name, else "#INDEX (OP)" from the reader: how messages name the node
    int index = 0;
};

struct OnnxValueShape {
    QString name;
    std::vector<qint64> dims;  // -1 for a dimension without a fixed size
    QString elementType;       // "FLOAT", ...
};

struct OnnxModelView {
    qint64 irVersion = 0;
    qint64 opset = 0;           // of the default domain
    QString producer;           // "pytorch 1.13.1"
    QString graphName;
    QList<OnnxTensor> initializers;
    QList<OnnxNodeView> nodes;  // in the file's order, which ONNX requires to be topological
    QList<OnnxValueShape> inputs;   // the graph's inputs that are not initializers
    QList<OnnxValueShape> outputs;
};

// Parses a serialized ModelProto. Errors name `fileName` and, where it applies, the node or initializer and the
// field at fault.
Result<OnnxModelView> readOnnxModel(const QByteArray &bytes, const QString &fileName);

// Reads `path` (a regular file of at most kMaxOnnxFileBytes) and parses it.
Result<OnnxModelView> readOnnxModelFile(const QString &path);

} // namespace ty
