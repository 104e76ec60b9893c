#include "onnx_model_reader.h"

#include "shape_types.h"

#include <onnx/onnx_pb.h>  // ONNX_ML and ONNX_NAMESPACE=onnx come from the onnx_proto target, as Debian built it

#include <QFile>
#include <QFileInfo>
#include <QSet>

#include <cstring>

namespace ty {

namespace {

QString text(const std::string &s) { return QString::fromStdString(s); }

Error fileError(const QString &file, const QString &where, const QString &field, const QString &message)
{
    return Error::inFile(file, where.isEmpty() ? message : QStringLiteral("%1: %2").arg(where, message), field);
}

QString dataTypeName(int type)
{
    const std::string &name = onnx::TensorProto_DataType_Name(onnx::TensorProto_DataType(type));
    return name.empty() ? QStringLiteral("type %1").arg(type) : text(name);
}

// The tensor's values into `*values`: from raw_data (as `Stored`, little-endian) or else from its typed field `field`.
// False when they are not `count`; `*found` is how many there are.
template <typename Stored, typename Field, typename Value>
bool readValues(const onnx::TensorProto &proto, const Field &field, qint64 count, std::vector<Value> *values, qint64 *found)
{
    if (!proto.has_raw_data()) {
        *found = field.size();
        if (*found != count)
            return false;
        values->assign(field.begin(), field.end());
        return true;
    }
    const std::string &raw = proto.raw_data();
    *found = qint64(raw.size() / sizeof(Stored));
    if (qint64(raw.size()) != count * qint64(sizeof(Stored)))
        return false;
    std::vector<Stored> stored(raw.size() / sizeof(Stored));
    if (!stored.empty())
        std::memcpy(stored.data(), raw.data(), stored.size() * sizeof(Stored));
    values->assign(stored.begin(), stored.end());
    return true;
}

// One tensor's dims and data, checked against each other; `where` names it in messages.
Result<OnnxTensor> readTensor(const onnx::TensorProto &proto, const QString &file, const QString &where)
{
    OnnxTensor t;
    t.name = text(proto.name());
    if (proto.data_location() == onnx::TensorProto::EXTERNAL || proto.external_data_size() > 0) {
        QString location;
        for (const auto &entry : proto.external_data())
            if (entry.key() == "location")
                location = text(entry.value());
        return fileError(file, where, QStringLiteral("external_data"),
                         QStringLiteral("its data is kept in an external file (%1), which the import does not read: save the model with "
                                        "its weights inside the .onnx file (onnx.save(model, path, save_as_external_data=False))")
                             .arg(location.isEmpty() ? QStringLiteral("no location given") : location));
    }
    if (proto.has_segment())
        return fileError(file, where, QStringLiteral("segment"), QStringLiteral("a tensor split into segments is not supported"));
    if (proto.dims_size() > kMaxOnnxRank)
        return fileError(file, where, QStringLiteral("dims"), QStringLiteral("%1 dimensions, more than the %2 allowed").arg(proto.dims_size()).arg(kMaxOnnxRank));
    qint64 count = 1;
    for (const qint64 d : proto.dims()) {
        if (d < 0)
            return fileError(file, where, QStringLiteral("dims"), QStringLiteral("a negative dimension (%1)").arg(d));
        if (d > 0 && count > kMaxOnnxTensorElements / d)
            return fileError(file, where, QStringLiteral("dims"), QStringLiteral("more than %1 elements").arg(kMaxOnnxTensorElements));
        count *= d;
        t.dims.push_back(d);
    }
    t.typeName = dataTypeName(proto.data_type());
    bool complete = true;
    qint64 found = 0;
    switch (proto.data_type()) {
    case onnx::TensorProto::FLOAT:
        t.type = OnnxTensor::Type::Float;
        complete = readValues<float>(proto, proto.float_data(), count, &t.floats, &found);
        break;
    case onnx::TensorProto::DOUBLE:
        t.type = OnnxTensor::Type::Float;
        complete = readValues<double>(proto, proto.double_data(), count, &t.floats, &found);
        break;
    case onnx::TensorProto::INT64:
        t.type = OnnxTensor::Type::Int64;
        complete = readValues<qint64>(proto, proto.int64_data(), count, &t.ints, &found);
        break;
    case onnx::TensorProto::INT32:
        t.type = OnnxTensor::Type::Int64;
        complete = readValues<qint32>(proto, proto.int32_data(), count, &t.ints, &found);
        break;
    default:
        t.type = OnnxTensor::Type::Unsupported;  // kept by name and shape; a rule that reads it refuses it
        break;
    }
    if (!complete)
        return fileError(file, where, proto.has_raw_data() ? QStringLiteral("raw_data") : QStringLiteral("data"),
                         QStringLiteral("holds %1 values, but its shape %2 needs %3").arg(found).arg(t.shapeText()).arg(count));
    return t;
}

Result<OnnxAttributeValue> readAttribute(const onnx::AttributeProto &proto, const QString &file, const QString &where)
{
    OnnxAttributeValue a;
    a.name = text(proto.name());
    switch (proto.type()) {
    case onnx::AttributeProto::INT:
        a.kind = OnnxAttributeValue::Kind::Int;
        a.intValue = proto.i();
        break;
    case onnx::AttributeProto::FLOAT:
        a.kind = OnnxAttributeValue::Kind::Float;
        a.floatValue = proto.f();
        break;
    case onnx::AttributeProto::INTS:
        a.kind = OnnxAttributeValue::Kind::Ints;
        a.ints.assign(proto.ints().begin(), proto.ints().end());
        break;
    case onnx::AttributeProto::FLOATS:
        a.kind = OnnxAttributeValue::Kind::Floats;
        a.floats.assign(proto.floats().begin(), proto.floats().end());
        break;
    case onnx::AttributeProto::STRING:
        a.kind = OnnxAttributeValue::Kind::String;
        a.text = QString::fromUtf8(proto.s().data(), qsizetype(proto.s().size()));
        break;
    case onnx::AttributeProto::TENSOR: {
        a.kind = OnnxAttributeValue::Kind::Tensor;
        Result<OnnxTensor> tensor = readTensor(proto.t(), file, QStringLiteral("%1, attribute %2").arg(where, a.name));
        if (!tensor)
            return tensor.error();
        a.tensor = std::move(tensor).value();
        break;
    }
    default:
        a.kind = OnnxAttributeValue::Kind::Other;  // graphs, sparse tensors, type protos: no rule reads them
        break;
    }
    return a;
}

OnnxValueShape valueShape(const onnx::ValueInfoProto &info)
{
    OnnxValueShape v;
    v.name = text(info.name());
    if (!info.type().has_tensor_type())
        return v;
    const onnx::TypeProto_Tensor &tensor = info.type().tensor_type();
    v.elementType = dataTypeName(tensor.elem_type());
    for (const auto &dim : tensor.shape().dim())
        v.dims.push_back(dim.has_dim_value() && dim.dim_value() > 0 ? dim.dim_value() : -1);
    return v;
}

} // namespace

qint64 OnnxTensor::elementCount() const
{
    qint64 count = 1;
    for (const qint64 d : dims)
        count *= d;
    return count;
}

QString OnnxTensor::shapeText() const { return shapeToText(dims); }

const OnnxAttributeValue *OnnxNodeView::attribute(const QString &attributeName) const
{
    for (const OnnxAttributeValue &a : attributes)
        if (a.name == attributeName)
            return &a;
    return nullptr;
}

QString OnnxNodeView::label() const
{
    return name.isEmpty() ? QStringLiteral("#%1 (%2)").arg(index).arg(opType) : name;
}

Result<OnnxModelView> readOnnxModel(const QByteArray &bytes, const QString &fileName)
{
    if (bytes.size() > kMaxOnnxFileBytes)
        return Error::inFile(fileName, QStringLiteral("%1 bytes, more than the %2 an ONNX file may have").arg(bytes.size()).arg(kMaxOnnxFileBytes));
    onnx::ModelProto model;
    if (bytes.isEmpty() || !model.ParseFromArray(bytes.constData(), int(bytes.size())))
        return Error::inFile(fileName, QStringLiteral("not an ONNX model: the file does not parse as an ONNX ModelProto (damaged, truncated or another format)"));
    if (!model.has_graph())
        return Error::inFile(fileName, QStringLiteral("the ONNX model has no graph"), QStringLiteral("graph"));

    OnnxModelView view;
    view.irVersion = model.ir_version();
    view.producer = (text(model.producer_name()) + QLatin1Char(' ') + text(model.producer_version())).trimmed();
    bool hasDefaultDomain = false;
    for (const auto &opset : model.opset_import())
        if (opset.domain().empty() || opset.domain() == "ai.onnx") {
            view.opset = opset.version();
            hasDefaultDomain = true;
        }
    if (!hasDefaultDomain)
        return Error::inFile(fileName, QStringLiteral("the model imports no version of the default ONNX operator set"), QStringLiteral("opset_import"));

    const onnx::GraphProto &graph = model.graph();
    view.graphName = text(graph.name());
    if (graph.node_size() > kMaxOnnxNodes)
        return Error::inFile(fileName, QStringLiteral("%1 nodes, more than the %2 allowed").arg(graph.node_size()).arg(kMaxOnnxNodes), QStringLiteral("graph.node"));
    if (graph.sparse_initializer_size() > 0)
        return Error::inFile(fileName, QStringLiteral("sparse initializers are not supported"), QStringLiteral("graph.sparse_initializer"));

    QSet<QString> initializerNames;
    for (const onnx::TensorProto &proto : graph.initializer()) {
        Result<OnnxTensor> tensor = readTensor(proto, fileName, QStringLiteral("initializer \"%1\"").arg(text(proto.name())));
        if (!tensor)
            return tensor.error();
        initializerNames.insert(tensor.value().name);
        view.initializers.append(std::move(tensor).value());
    }
    for (const onnx::ValueInfoProto &info : graph.input())
        if (!initializerNames.contains(text(info.name())))
            view.inputs.append(valueShape(info));
    for (const onnx::ValueInfoProto &info : graph.output())
        view.outputs.append(valueShape(info));

    for (int i = 0; i < graph.node_size(); ++i) {
        const onnx::NodeProto &proto = graph.node(i);
        OnnxNodeView node;
        node.index = i;
        node.name = text(proto.name());
        node.opType = text(proto.op_type());
        node.domain = text(proto.domain()) == QStringLiteral("ai.onnx") ? QString() : text(proto.domain());
        for (const std::string &input : proto.input())
            node.inputs << text(input);
        for (const std::string &output : proto.output())
            node.outputs << text(output);
        for (const onnx::AttributeProto &attribute : proto.attribute()) {
            Result<OnnxAttributeValue> value = readAttribute(attribute, fileName, QStringLiteral("node \"%1\"").arg(node.label()));
            if (!value)
                return value.error();
            node.attributes.append(std::move(value).value());
        }
        view.nodes.append(std::move(node));
    }
    return view;
}

Result<OnnxModelView> readOnnxModelFile(const QString &path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return Error::inFile(path, QStringLiteral("no such file"));
    if (!info.isFile())
        return Error::inFile(path, QStringLiteral("not a regular file"));
    if (info.size() > kMaxOnnxFileBytes)
        return Error::inFile(path, QStringLiteral("%1 bytes, more than the %2 an ONNX file may have").arg(info.size()).arg(kMaxOnnxFileBytes));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error::inFile(path, QStringLiteral("cannot be read: %1").arg(file.errorString()));
    return readOnnxModel(file.readAll(), path);
}

} // namespace ty
