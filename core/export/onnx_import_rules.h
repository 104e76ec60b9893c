#pragma once
// One ONNX import rule per op type, keyed by the op's name and looked up once per node: the reverse of the export
// rules (onnx_export_rules.h). A rule reads its node's attributes and inputs through the context and either adds
// one Trainyard layer (a block, its parameters and its weights), forwards an input (Identity, Dropout), or gives
// its output a constant value (Constant). Patterns of several nodes that are one block (MatMul then Add is a
// linear layer; the exact GELU written with Erf) are joined first (onnx_import_patterns.cpp).

#include "onnx_model_reader.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>

#include <functional>
#include <optional>

namespace ty {

// A layer of the imported network, before it is named and grouped.
struct ImportedLayer {
    QString onnxNode;     // the ONNX node's name: its scopes say where it sits ("/layer1/layer1.0/conv1/Conv")
    QString opType;
    QString block;        // "layer.conv2d"
    QJsonObject params;   // every parameter the block's defaults do not give
    QStringList inputs;   // the values it reads, in the order of the block's input ports
    QList<OnnxTensor> weights;  // named by the block's tensor: "weight", "bias", "running_mean", ...
    QString output;       // the value it produces
};

// What the import knows so far: constants, the rank (batch dimension included) of every value computed from the
// model's input, and the layers added.
struct OnnxImportState {
    QString file;
    qint64 opset = 0;
    QHash<QString, OnnxTensor> constants;
    QHash<QString, int> ranks;
    QHash<QString, QString> aliases;  // a value that is another (Identity)
    QList<ImportedLayer> layers;

    QString resolve(const QString &value) const;
};

class OnnxImportContext {
public:
    OnnxImportContext(const OnnxNodeView &node, OnnxImportState &state) : m_node(node), m_state(state) {}

    const OnnxNodeView &node() const { return m_node; }
    qint64 opset() const { return m_state.opset; }

    qint64 intAttribute(const QString &name, qint64 fallback) const;
    float floatAttribute(const QString &name, float fallback) const;
    std::vector<qint64> intsAttribute(const QString &name) const;  // empty when not given
    QString textAttribute(const QString &name, const QString &fallback) const;

    bool hasInput(int index) const;
    bool isConstant(int index) const;
    // Input `index` as a constant of float or int64 values; an Error naming `field` when it is computed from the
    // model's input, missing, or of another type.
    Result<const OnnxTensor *> constant(int index, const QString &field) const;
    // The rank of input `index`, a tensor computed from the model's input (batch dimension included); an Error
    // naming `field` when it is a constant or missing.
    Result<int> rank(int index, const QString &field) const;
    QString input(int index) const;  // the value input `index` is (after Identity)

    // Output 0 is a new layer reading the given inputs (indices into the node's inputs), of rank `outputRank`.
    void addLayer(const QString &block, const QJsonObject &params, const QList<int> &inputIndices, QList<OnnxTensor> weights, int outputRank);
    // Output 0 is input `index` itself.
    void forward(int index);
    // Output 0 is this constant.
    void setConstant(OnnxTensor tensor);

    // "node NAME (OP): MESSAGE", naming the field (an attribute or input).
    Error error(const QString &field, const QString &message) const;

private:
    const OnnxNodeView &m_node;
    OnnxImportState &m_state;
};

using OnnxImportRule = std::function<Status(OnnxImportContext &context)>;

class OnnxImportRules {
public:
    static const OnnxImportRules &builtin();

    void add(const QString &opType, OnnxImportRule rule);
    const OnnxImportRule *find(const QString &opType) const;  // nullptr when the op has no rule
    QStringList opTypes() const;                              // sorted

private:
    QHash<QString, OnnxImportRule> m_rules;
};

// The window of a convolution or pooling node with `spatial` dimensions (kernel_shape, else `kernelFromWeight`;
// strides; pads; dilations; auto_pad), as the one kernel size, stride and padding of Trainyard's blocks: an Error
// naming the attribute when the sides differ, the padding is not the same on every side, or dilation is not 1.
struct SlidingWindowParams {
    qint64 kernel = 1, stride = 1, padding = 0;
};
Result<SlidingWindowParams> readSlidingWindow(const OnnxImportContext &context, int spatial, const std::vector<qint64> &kernelFromWeight = {});

// A tensor named `name` with these dims and floats (weights the rules compute, such as a transposed matrix).
OnnxTensor floatTensor(const QString &name, std::vector<qint64> dims, std::vector<float> values);

// The nodes with the patterns of several nodes that are one block joined into one node (onnx_import_patterns.cpp):
// MatMul by a constant then Add of a constant is one MatMul with the bias as its third input; the exact GELU written
// with Erf is one Gelu node. A pattern whose inner values anything else reads stays as it is.
QList<OnnxNodeView> joinImportPatterns(const QList<OnnxNodeView> &nodes, const QHash<QString, OnnxTensor> &initializers,
                                       const QStringList &graphOutputs);

// The registrations, one file per kind of op.
void addLayerImportRules(OnnxImportRules &rules);      // Conv, Gemm, MatMul, BatchNormalization, Add, Concat
void addElementwiseImportRules(OnnxImportRules &rules);  // activations, pooling, shapes, Identity, Dropout, Constant

} // namespace ty
