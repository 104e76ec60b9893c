#pragma once
// Builds one ONNX graph (opset 17) for the export rules, without exposing the ONNX protobuf classes: values are
// named by strings, weights come from a checkpoint's tensors and become initializers under their stable names
// (`fc1.weight`), scalars become Constant nodes (so the initializers are exactly the weights). Not thread-safe;
// one builder per export.

#include "error.h"
#include "safetensors_file.h"
#include "shape_types.h"

#include <QMap>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace ty {

constexpr int kOnnxOpset = 17;

// One attribute of a node: an integer, a float, a list of integers or floats, or a string.
struct OnnxAttribute {
    enum class Kind { Int, Float, Ints, Floats, String };
    QString name;
    Kind kind = Kind::Int;
    qint64 intValue = 0;
    float floatValue = 0;
    std::vector<qint64> intsValue;
    std::vector<float> floatsValue;
    QString stringValue;

    static OnnxAttribute integer(const QString &name, qint64 value);
    static OnnxAttribute real(const QString &name, float value);
    static OnnxAttribute integers(const QString &name, std::vector<qint64> values);
    static OnnxAttribute reals(const QString &name, std::vector<float> values);
    static OnnxAttribute text(const QString &name, const QString &value);
};

class OnnxGraphBuilder {
public:
    // `weights` must outlive the builder.
    explicit OnnxGraphBuilder(const TensorFile &weights);
    ~OnnxGraphBuilder();
    OnnxGraphBuilder(const OnnxGraphBuilder &) = delete;
    OnnxGraphBuilder &operator=(const OnnxGraphBuilder &) = delete;

    // A value name not used yet, from `base` ("fc1", then "fc1_2", ...).
    QString freshValue(const QString &base);
    // Adds a node computing `outputs` from `inputs` (an empty input name leaves an optional input out). A `name`
    // already given to a node gets a suffix ("_2", ...), as node names must be unique.
    void addNode(const QString &opType, const QString &name, const QStringList &inputs, const QStringList &outputs,
                 const std::vector<OnnxAttribute> &attributes = {});
    // Adds one node with a single fresh output named after `name` and returns that output's name.
    QString apply(const QString &opType, const QString &name, const QStringList &inputs,
                  const std::vector<OnnxAttribute> &attributes = {});
    // The checkpoint tensor `<nodeId>.<tensor>` as an initializer (added once), by its name. Errors name the node
    // and the tensor when the checkpoint lacks it or holds it in a type other than F32.
    Result<QString> weight(const QString &nodeId, const QString &tensor);
    // Whether the checkpoint holds `<nodeId>.<tensor>`.
    bool hasWeight(const QString &nodeId, const QString &tensor) const;
    // A float32 scalar produced by a Constant node.
    QString scalar(float value, const QString &name);

    // The graph's float32 input and output with a dynamic batch dimension "N" before the per-sample shape.
    void setInput(const QString &name, const SampleShape &sampleShape);
    void setOutput(const QString &name, const SampleShape &sampleShape);

    QStringList initializerNames() const;  // in the order added
    qint64 initializerValues() const;      // elements over all initializers
    int nodeCount() const;

    // The serialized ModelProto: IR version 8, the default domain at kOnnxOpset, `graphName`, and
    // `metadata` as metadata_props.
    Result<QByteArray> serialize(const QString &graphName, const QString &producerVersion,
                                 const QMap<QString, QString> &metadata) const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace ty
