#include "onnx_graph_builder.h"

#include "composite_expansion.h"

#include <onnx/onnx_pb.h>  // ONNX_ML and ONNX_NAMESPACE=onnx come from the onnx_proto target, as Debian built it

#include <QSet>

#include <string>

namespace ty {

namespace {

std::string utf8(const QString &text) { return text.toStdString(); }

void setShape(onnx::ValueInfoProto *info, const QString &name, const SampleShape &sampleShape)
{
    info->set_name(utf8(name));
    onnx::TypeProto_Tensor *tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    onnx::TensorShapeProto *shape = tensor->mutable_shape();
    shape->add_dim()->set_dim_param("N");
    for (int64_t d : sampleShape)
        shape->add_dim()->set_dim_value(d);
}

} // namespace

OnnxAttribute OnnxAttribute::integer(const QString &name, qint64 value)
{
    OnnxAttribute a;
    a.name = name;
    a.kind = Kind::Int;
    a.intValue = value;
    return a;
}

OnnxAttribute OnnxAttribute::real(const QString &name, float value)
{
    OnnxAttribute a;
    a.name = name;
    a.kind = Kind::Float;
    a.floatValue = value;
    return a;
}

OnnxAttribute OnnxAttribute::integers(const QString &name, std::vector<qint64> values)
{
    OnnxAttribute a;
    a.name = name;
    a.kind = Kind::Ints;
    a.intsValue = std::move(values);
    return a;
}

OnnxAttribute OnnxAttribute::reals(const QString &name, std::vector<float> values)
{
    OnnxAttribute a;
    a.name = name;
    a.kind = Kind::Floats;
    a.floatsValue = std::move(values);
    return a;
}

OnnxAttribute OnnxAttribute::text(const QString &name, const QString &value)
{
    OnnxAttribute a;
    a.name = name;
    a.kind = Kind::String;
    a.stringValue = value;
    return a;
}

struct OnnxGraphBuilder::Impl {
    explicit Impl(const TensorFile &w) : weights(w) {}
    const TensorFile &weights;
    onnx::GraphProto graph;
    QSet<QString> usedValues;
    QSet<QString> usedNodeNames;  // onnxruntime refuses a graph with two nodes of one name
    QStringList initializers;
    qint64 initializerValues = 0;
};

OnnxGraphBuilder::OnnxGraphBuilder(const TensorFile &weights) : d(std::make_unique<Impl>(weights)) {}

OnnxGraphBuilder::~OnnxGraphBuilder() = default;

QString OnnxGraphBuilder::freshValue(const QString &base)
{
    QString name = base;
    for (int i = 2; d->usedValues.contains(name); ++i)
        name = base + QStringLiteral("_%1").arg(i);
    d->usedValues.insert(name);
    return name;
}

void OnnxGraphBuilder::addNode(const QString &opType, const QString &name, const QStringList &inputs, const QStringList &outputs,
                               const std::vector<OnnxAttribute> &attributes)
{
    onnx::NodeProto *node = d->graph.add_node();
    node->set_op_type(utf8(opType));
    QString unique = name;
    for (int i = 2; d->usedNodeNames.contains(unique); ++i)
        unique = name + QStringLiteral("_%1").arg(i);
    d->usedNodeNames.insert(unique);
    node->set_name(utf8(unique));
    for (const QString &input : inputs)
        node->add_input(utf8(input));
    for (const QString &output : outputs) {
        node->add_output(utf8(output));
        d->usedValues.insert(output);
    }
    for (const OnnxAttribute &a : attributes) {
        onnx::AttributeProto *attribute = node->add_attribute();
        attribute->set_name(utf8(a.name));
        switch (a.kind) {
        case OnnxAttribute::Kind::Int:
            attribute->set_type(onnx::AttributeProto::INT);
            attribute->set_i(a.intValue);
            break;
        case OnnxAttribute::Kind::Float:
            attribute->set_type(onnx::AttributeProto::FLOAT);
            attribute->set_f(a.floatValue);
            break;
        case OnnxAttribute::Kind::Ints:
            attribute->set_type(onnx::AttributeProto::INTS);
            for (qint64 v : a.intsValue)
                attribute->add_ints(v);
            break;
        case OnnxAttribute::Kind::Floats:
            attribute->set_type(onnx::AttributeProto::FLOATS);
            for (float v : a.floatsValue)
                attribute->add_floats(v);
            break;
        case OnnxAttribute::Kind::String:
            attribute->set_type(onnx::AttributeProto::STRING);
            attribute->set_s(utf8(a.stringValue));
            break;
        }
    }
}

QString OnnxGraphBuilder::apply(const QString &opType, const QString &name, const QStringList &inputs,
                                const std::vector<OnnxAttribute> &attributes)
{
    const QString output = freshValue(name);
    addNode(opType, name, inputs, {output}, attributes);
    return output;
}

bool OnnxGraphBuilder::hasWeight(const QString &nodeId, const QString &tensor) const
{
    return d->weights.find(tensorName(nodeId, tensor)) != nullptr;
}

Result<QString> OnnxGraphBuilder::weight(const QString &nodeId, const QString &tensor)
{
    const QString name = tensorName(nodeId, tensor);
    if (d->initializers.contains(name))
        return name;
    const NamedTensor *found = d->weights.find(name);
    Error e;
    e.node = nodeId;
    e.field = tensor;
    if (!found) {
        e.message = QStringLiteral("the checkpoint holds no tensor \"%1\"").arg(name);
        return e;
    }
    if (found->dtype != TensorDType::F32) {
        e.message = QStringLiteral("tensor \"%1\" is %2; only F32 weights are exported").arg(name, tensorDTypeName(found->dtype));
        return e;
    }
    onnx::TensorProto *initializer = d->graph.add_initializer();
    initializer->set_name(utf8(name));
    initializer->set_data_type(onnx::TensorProto::FLOAT);
    for (qint64 dim : found->shape)
        initializer->add_dims(dim);
    // Both formats store raw little-endian values in row-major order.
    initializer->set_raw_data(found->data.constData(), size_t(found->data.size()));
    d->initializers.append(name);
    d->usedValues.insert(name);
    d->initializerValues += found->elementCount();
    return name;
}

QString OnnxGraphBuilder::scalar(float value, const QString &name)
{
    const QString output = freshValue(name);
    addNode(QStringLiteral("Constant"), output, {}, {output}, {OnnxAttribute::real(QStringLiteral("value_float"), value)});
    return output;
}

void OnnxGraphBuilder::setInput(const QString &name, const SampleShape &sampleShape)
{
    d->usedValues.insert(name);
    setShape(d->graph.add_input(), name, sampleShape);
}

void OnnxGraphBuilder::setOutput(const QString &name, const SampleShape &sampleShape)
{
    setShape(d->graph.add_output(), name, sampleShape);
}

QStringList OnnxGraphBuilder::initializerNames() const { return d->initializers; }

qint64 OnnxGraphBuilder::initializerValues() const { return d->initializerValues; }

int OnnxGraphBuilder::nodeCount() const { return d->graph.node_size(); }

Result<QByteArray> OnnxGraphBuilder::serialize(const QString &graphName, const QString &producerVersion,
                                               const QMap<QString, QString> &metadata) const
{
    onnx::ModelProto model;
    model.set_ir_version(8);  // the IR version of opset 17 (ONNX 1.12)
    model.set_producer_name("trainyard");
    model.set_producer_version(utf8(producerVersion));
    onnx::OperatorSetIdProto *opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(kOnnxOpset);
    for (auto it = metadata.begin(); it != metadata.end(); ++it) {
        onnx::StringStringEntryProto *entry = model.add_metadata_props();
        entry->set_key(utf8(it.key()));
        entry->set_value(utf8(it.value()));
    }
    *model.mutable_graph() = d->graph;
    model.mutable_graph()->set_name(utf8(graphName));
    std::string bytes;
    if (!model.SerializeToString(&bytes)) {
        return Error(QStringLiteral("the ONNX model could not be serialized (protobuf limits a model to 2 GiB)"));
    }
    return QByteArray(bytes.data(), qsizetype(bytes.size()));
}

} // namespace ty
