#include "onnx_import_rules.h"

#include <algorithm>

namespace ty {

QString OnnxImportState::resolve(const QString &value) const
{
    QString v = value;
    for (int hops = 0; aliases.contains(v) && hops <= aliases.size(); ++hops)
        v = aliases.value(v);
    return v;
}

qint64 OnnxImportContext::intAttribute(const QString &name, qint64 fallback) const
{
    const OnnxAttributeValue *a = m_node.attribute(name);
    return a && a->kind == OnnxAttributeValue::Kind::Int ? a->intValue : fallback;
}

float OnnxImportContext::floatAttribute(const QString &name, float fallback) const
{
    const OnnxAttributeValue *a = m_node.attribute(name);
    return a && a->kind == OnnxAttributeValue::Kind::Float ? a->floatValue : fallback;
}

std::vector<qint64> OnnxImportContext::intsAttribute(const QString &name) const
{
    const OnnxAttributeValue *a = m_node.attribute(name);
    return a && a->kind == OnnxAttributeValue::Kind::Ints ? a->ints : std::vector<qint64>{};
}

QString OnnxImportContext::textAttribute(const QString &name, const QString &fallback) const
{
    const OnnxAttributeValue *a = m_node.attribute(name);
    return a && a->kind == OnnxAttributeValue::Kind::String ? a->text : fallback;
}

bool OnnxImportContext::hasInput(int index) const { return index < m_node.inputs.size() && !m_node.inputs.at(index).isEmpty(); }

QString OnnxImportContext::input(int index) const { return hasInput(index) ? m_state.resolve(m_node.inputs.at(index)) : QString(); }

bool OnnxImportContext::isConstant(int index) const { return hasInput(index) && m_state.constants.contains(input(index)); }

Result<const OnnxTensor *> OnnxImportContext::constant(int index, const QString &field) const
{
    if (!hasInput(index))
        return error(field, QStringLiteral("input %1 is missing").arg(index));
    const auto it = m_state.constants.constFind(input(index));
    if (it == m_state.constants.constEnd())
        return error(field, QStringLiteral("input %1 (\"%2\") is computed from the model's input; the import needs a constant (an initializer "
                                           "or a Constant node) there").arg(index).arg(m_node.inputs.at(index)));
    if (it->type == OnnxTensor::Type::Unsupported)
        return error(field, QStringLiteral("input %1 (\"%2\") holds %3 values; the import reads FLOAT, DOUBLE, INT64 and INT32 tensors")
                                .arg(index).arg(m_node.inputs.at(index), it->typeName));
    return &it.value();
}

Result<int> OnnxImportContext::rank(int index, const QString &field) const
{
    if (!hasInput(index))
        return error(field, QStringLiteral("input %1 is missing").arg(index));
    const auto it = m_state.ranks.constFind(input(index));
    if (it == m_state.ranks.constEnd())
        return error(field, QStringLiteral("input %1 (\"%2\") is a constant (or unknown); the import needs a tensor computed from the model's "
                                           "input there").arg(index).arg(m_node.inputs.at(index)));
    return it.value();
}

void OnnxImportContext::addLayer(const QString &block, const QJsonObject &params, const QList<int> &inputIndices, QList<OnnxTensor> weights,
                                 int outputRank)
{
    ImportedLayer layer;
    layer.onnxNode = m_node.label();
    layer.opType = m_node.opType;
    layer.block = block;
    layer.params = params;
    for (const int i : inputIndices)
        layer.inputs << input(i);
    layer.weights = std::move(weights);
    layer.output = m_node.outputs.value(0);
    m_state.ranks.insert(layer.output, outputRank);
    m_state.layers.append(std::move(layer));
}

void OnnxImportContext::forward(int index)
{
    const QString output = m_node.outputs.value(0);
    m_state.aliases.insert(output, input(index));
}

void OnnxImportContext::setConstant(OnnxTensor tensor)
{
    tensor.name = m_node.outputs.value(0);
    m_state.constants.insert(tensor.name, std::move(tensor));
}

Error OnnxImportContext::error(const QString &field, const QString &message) const
{
    Error e = Error::atNode(m_node.label(), QStringLiteral("ONNX %1 node: %2").arg(m_node.opType, message), field);
    e.file = m_state.file;
    return e;
}

const OnnxImportRules &OnnxImportRules::builtin()
{
    static const OnnxImportRules rules = [] {
        OnnxImportRules r;
        addLayerImportRules(r);
        addElementwiseImportRules(r);
        return r;
    }();
    return rules;
}

void OnnxImportRules::add(const QString &opType, OnnxImportRule rule) { m_rules.insert(opType, std::move(rule)); }

const OnnxImportRule *OnnxImportRules::find(const QString &opType) const
{
    const auto it = m_rules.constFind(opType);
    return it == m_rules.constEnd() ? nullptr : &it.value();
}

QStringList OnnxImportRules::opTypes() const
{
    QStringList types = m_rules.keys();
    std::sort(types.begin(), types.end());
    return types;
}

namespace {

// One value for every side, else an Error naming the attribute.
Result<qint64> sameOnEverySide(const OnnxImportContext &c, const QString &name, const std::vector<qint64> &values, qint64 fallback)
{
    if (values.empty())
        return fallback;
    for (const qint64 v : values)
        if (v != values.front())
            return c.error(name, QStringLiteral("differs between sides or axes; Trainyard's blocks take one value for all"));
    return values.front();
}

} // namespace

Result<SlidingWindowParams> readSlidingWindow(const OnnxImportContext &c, int spatial, const std::vector<qint64> &kernelFromWeight)
{
    const QString autoPad = c.textAttribute(QStringLiteral("auto_pad"), QStringLiteral("NOTSET"));
    if (autoPad != QStringLiteral("NOTSET") && autoPad != QStringLiteral("VALID"))
        return c.error(QStringLiteral("auto_pad"), QStringLiteral("auto_pad %1 is not supported; NOTSET with explicit pads is").arg(autoPad));
    std::vector<qint64> kernel = c.intsAttribute(QStringLiteral("kernel_shape"));
    if (kernel.empty())
        kernel = kernelFromWeight;
    if (int(kernel.size()) != spatial)
        return c.error(QStringLiteral("kernel_shape"), QStringLiteral("needs %1 values").arg(spatial));
    SlidingWindowParams w;
    const Result<qint64> k = sameOnEverySide(c, QStringLiteral("kernel_shape"), kernel, 1);
    const Result<qint64> s = sameOnEverySide(c, QStringLiteral("strides"), c.intsAttribute(QStringLiteral("strides")), 1);
    const Result<qint64> p = sameOnEverySide(c, QStringLiteral("pads"), c.intsAttribute(QStringLiteral("pads")), 0);
    const Result<qint64> d = sameOnEverySide(c, QStringLiteral("dilations"), c.intsAttribute(QStringLiteral("dilations")), 1);
    for (const Result<qint64> *r : {&k, &s, &p, &d})
        if (!*r)
            return r->error();
    if (d.value() != 1)
        return c.error(QStringLiteral("dilations"), QStringLiteral("dilation %1; Trainyard's blocks are not dilated").arg(d.value()));
    if (k.value() < 1 || s.value() < 1 || p.value() < 0 || k.value() > 1024 || s.value() > 1024 || p.value() > 1024)
        return c.error(QStringLiteral("kernel_shape"), QStringLiteral("kernel %1, stride %2, padding %3 are out of range").arg(k.value()).arg(s.value()).arg(p.value()));
    w.kernel = k.value();
    w.stride = s.value();
    w.padding = autoPad == QStringLiteral("VALID") ? 0 : p.value();
    return w;
}

OnnxTensor floatTensor(const QString &name, std::vector<qint64> dims, std::vector<float> values)
{
    OnnxTensor t;
    t.name = name;
    t.type = OnnxTensor::Type::Float;
    t.typeName = QStringLiteral("FLOAT");
    t.dims = std::move(dims);
    t.floats = std::move(values);
    return t;
}

} // namespace ty
