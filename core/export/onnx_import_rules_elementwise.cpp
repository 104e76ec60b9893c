// Import rules of the ONNX ops without weights: activations, pooling, flattening and reshaping, and the ops that
// only pass values on (Identity, Dropout in evaluation) or hold them (Constant).

#include "onnx_import_rules.h"

#include <QJsonArray>

#include <cmath>
#include <optional>
#include <limits>

namespace ty {

namespace {

// An op that keeps its input's rank and becomes `block` with no parameters.
OnnxImportRule elementwise(const char *block)
{
    const QString type = QString::fromLatin1(block);
    return [type](OnnxImportContext &c) -> Status {
        const Result<int> rank = c.rank(0, QStringLiteral("X"));
        if (!rank)
            return rank.error();
        c.addLayer(type, {}, {0}, {}, rank.value());
        return Status::success();
    };
}

// The exact GELU (approximate "none"): the op of opset 20, or the Erf pattern that the patterns join into one.
Status gelu(OnnxImportContext &c)
{
    if (c.textAttribute(QStringLiteral("approximate"), QStringLiteral("none")) != QStringLiteral("none"))
        return c.error(QStringLiteral("approximate"), QStringLiteral("the tanh approximation; layer.gelu is the exact GELU"));
    return elementwise("layer.gelu")(c);
}

// Softmax and LogSoftmax over the last axis, which is what layer.softmax computes.
OnnxImportRule lastAxis(const char *block)
{
    const QString type = QString::fromLatin1(block);
    return [type](OnnxImportContext &c) -> Status {
        const Result<int> rank = c.rank(0, QStringLiteral("input"));
        if (!rank)
            return rank.error();
        qint64 axis = c.intAttribute(QStringLiteral("axis"), c.opset() >= 13 ? -1 : 1);
        if (axis < 0)
            axis += rank.value();
        if (axis != rank.value() - 1)
            return c.error(QStringLiteral("axis"), QStringLiteral("over axis %1 of a rank-%2 tensor; Trainyard's block takes the last axis")
                                                       .arg(axis).arg(rank.value()));
        c.addLayer(type, {}, {0}, {}, rank.value());
        return Status::success();
    };
}

Status leakyRelu(OnnxImportContext &c)
{
    const Result<int> rank = c.rank(0, QStringLiteral("X"));
    if (!rank)
        return rank.error();
    c.addLayer(QStringLiteral("layer.leaky_relu"), {{QStringLiteral("negative_slope"), double(c.floatAttribute(QStringLiteral("alpha"), 0.01f))}}, {0},
               {}, rank.value());
    return Status::success();
}

// A scalar bound of Clip: an input since opset 11, an attribute before.
Result<std::optional<double>> clipBound(const OnnxImportContext &c, int index, const QString &attribute)
{
    if (c.opset() < 11) {
        const OnnxAttributeValue *a = c.node().attribute(attribute);
        return a ? std::optional<double>(a->floatValue) : std::nullopt;
    }
    if (!c.hasInput(index))
        return std::optional<double>();
    const Result<const OnnxTensor *> t = c.constant(index, attribute);
    if (!t)
        return t.error();
    if (t.value()->elementCount() != 1)
        return c.error(attribute, QStringLiteral("the bound has shape %1; a scalar was expected").arg(t.value()->shapeText()));
    return std::optional<double>(t.value()->type == OnnxTensor::Type::Float ? double(t.value()->floats[0]) : double(t.value()->ints[0]));
}

// Clip(0, none) is a ReLU, Clip(0, 6) a ReLU6 (MobileNet's).
Status clip(OnnxImportContext &c)
{
    const Result<int> rank = c.rank(0, QStringLiteral("input"));
    if (!rank)
        return rank.error();
    const Result<std::optional<double>> low = clipBound(c, 1, QStringLiteral("min")), high = clipBound(c, 2, QStringLiteral("max"));
    if (!low)
        return low.error();
    if (!high)
        return high.error();
    const bool atZero = low.value() && *low.value() == 0.0;
    const bool unbounded = !high.value() || std::isinf(*high.value());
    if (atZero && unbounded) {
        c.addLayer(QStringLiteral("layer.relu"), {}, {0}, {}, rank.value());
        return Status::success();
    }
    if (atZero && *high.value() == 6.0) {
        c.addLayer(QStringLiteral("layer.relu6"), {}, {0}, {}, rank.value());
        return Status::success();
    }
    const auto bound = [](const std::optional<double> &v) { return v ? QString::number(*v) : QStringLiteral("none"); };
    return c.error(QStringLiteral("min"), QStringLiteral("Clip(%1, %2) has no Trainyard block; Clip(0, none) imports as layer.relu, Clip(0, 6) as layer.relu6")
                                              .arg(bound(low.value()), bound(high.value())));
}

Result<SlidingWindowParams> poolWindow(OnnxImportContext &c)
{
    if (c.intAttribute(QStringLiteral("ceil_mode"), 0) != 0)
        return c.error(QStringLiteral("ceil_mode"), QStringLiteral("ceil_mode 1; Trainyard's pools round the output size down"));
    if (c.intAttribute(QStringLiteral("storage_order"), 0) != 0)
        return c.error(QStringLiteral("storage_order"), QStringLiteral("column-major indices are not supported"));
    return readSlidingWindow(c, 2);
}

OnnxImportRule pool(bool average)
{
    return [average](OnnxImportContext &c) -> Status {
        const Result<int> rank = c.rank(0, QStringLiteral("X"));
        if (!rank)
            return rank.error();
        if (rank.value() != 4)
            return c.error(QStringLiteral("X"), QStringLiteral("pooling over %1 dimensions; the import takes 2-D pooling").arg(rank.value() - 2));
        for (int i = 1; i < c.node().outputs.size(); ++i)
            if (!c.node().outputs.at(i).isEmpty())
                return c.error(QStringLiteral("Indices"), QStringLiteral("the indices of the maxima are an output; layer.maxpool2d has none"));
        const Result<SlidingWindowParams> w = poolWindow(c);
        if (!w)
            return w.error();
        if (average && w.value().padding > 0 && c.intAttribute(QStringLiteral("count_include_pad"), 0) == 0)
            return c.error(QStringLiteral("count_include_pad"), QStringLiteral("padding left out of each window's mean; layer.avgpool2d counts it "
                                                                               "(count_include_pad 1)"));
        const QJsonObject params{{QStringLiteral("kernel_size"), double(w.value().kernel)},
                                 {QStringLiteral("stride"), double(w.value().stride)},
                                 {QStringLiteral("padding"), double(w.value().padding)}};
        c.addLayer(average ? QStringLiteral("layer.avgpool2d") : QStringLiteral("layer.maxpool2d"), params, {0}, {}, 4);
        return Status::success();
    };
}

// [N, C, H, W] to [N, C, 1, 1], as adaptive average pooling to 1 x 1 (the shape stays what the ONNX graph has).
Status globalAveragePool(OnnxImportContext &c)
{
    const Result<int> rank = c.rank(0, QStringLiteral("X"));
    if (!rank)
        return rank.error();
    if (rank.value() != 4)
        return c.error(QStringLiteral("X"), QStringLiteral("pooling a rank-%1 tensor; the import takes [N, C, H, W]").arg(rank.value()));
    c.addLayer(QStringLiteral("layer.adaptive_avgpool2d"), {{QStringLiteral("output_height"), 1}, {QStringLiteral("output_width"), 1}}, {0}, {}, 4);
    return Status::success();
}

// Flatten from axis 1: layer.flatten; of a tensor that is flat already, nothing.
Status flatten(OnnxImportContext &c)
{
    const Result<int> rank = c.rank(0, QStringLiteral("input"));
    if (!rank)
        return rank.error();
    qint64 axis = c.intAttribute(QStringLiteral("axis"), 1);
    if (axis < 0)
        axis += rank.value();
    if (axis != 1)
        return c.error(QStringLiteral("axis"), QStringLiteral("flattens from axis %1; layer.flatten keeps the batch axis and flattens the rest (axis 1)")
                                                   .arg(c.intAttribute(QStringLiteral("axis"), 1)));
    if (rank.value() == 2)
        c.forward(0);
    else
        c.addLayer(QStringLiteral("layer.flatten"), {}, {0}, {}, 2);
    return Status::success();
}

// A constant target shape whose first entry is the batch (0, -1 or the exported batch size): layer.flatten for one
// sample dimension, layer.reshape for more.
Status reshape(OnnxImportContext &c)
{
    const Result<int> rank = c.rank(0, QStringLiteral("data"));
    if (!rank)
        return rank.error();
    const Result<const OnnxTensor *> shape = c.constant(1, QStringLiteral("shape"));
    if (!shape)
        return shape.error();
    if (shape.value()->type != OnnxTensor::Type::Int64 || shape.value()->dims.size() != 1 || shape.value()->ints.size() < 2)
        return c.error(QStringLiteral("shape"), QStringLiteral("the target shape must be int64 [batch, ...], got %1 %2")
                                                    .arg(shape.value()->typeName, shape.value()->shapeText()));
    if (c.intAttribute(QStringLiteral("allowzero"), 0) != 0)
        return c.error(QStringLiteral("allowzero"), QStringLiteral("allowzero 1 is not supported"));
    const std::vector<qint64> &target = shape.value()->ints;
    int unknown = 0;
    QJsonArray sample;
    for (size_t i = 1; i < target.size(); ++i) {
        if (target[i] == 0 || target[i] < -1)
            return c.error(QStringLiteral("shape"), QStringLiteral("sample dimension %1 is %2; the import takes sizes and one -1").arg(i).arg(target[i]));
        unknown += target[i] == -1;
        sample.append(double(target[i]));
    }
    if (target[0] < -1 || (target[0] == -1 && unknown > 0) || unknown > 1)
        return c.error(QStringLiteral("shape"), QStringLiteral("the target shape leaves more than one dimension to infer"));
    if (sample.size() == 1)
        c.addLayer(QStringLiteral("layer.flatten"), {}, {0}, {}, 2);
    else
        c.addLayer(QStringLiteral("layer.reshape"), {{QStringLiteral("shape"), sample}}, {0}, {}, int(target.size()));
    return Status::success();
}

// Identity of a constant is that constant; of a tensor, the tensor.
Status identity(OnnxImportContext &c)
{
    if (c.isConstant(0)) {
        const Result<const OnnxTensor *> t = c.constant(0, QStringLiteral("input"));
        if (!t)
            return t.error();
        c.setConstant(*t.value());
        return Status::success();
    }
    const Result<int> rank = c.rank(0, QStringLiteral("input"));
    if (!rank)
        return rank.error();
    c.forward(0);
    return Status::success();
}

// Dropout in evaluation passes its input on, as the export writes it; in training mode it is refused.
Status dropout(OnnxImportContext &c)
{
    if (c.hasInput(2)) {
        const Result<const OnnxTensor *> training = c.constant(2, QStringLiteral("training_mode"));
        if (!training)
            return training.error();
        if (training.value()->elementCount() == 1 && ((training.value()->type == OnnxTensor::Type::Int64 && training.value()->ints[0] != 0)))
            return c.error(QStringLiteral("training_mode"), QStringLiteral("dropout in training mode; export the model in evaluation mode"));
    }
    const Result<int> rank = c.rank(0, QStringLiteral("data"));
    if (!rank)
        return rank.error();
    c.forward(0);
    return Status::success();
}

// Padding by nothing (torch writes one before an average pool that counts padding) passes its input on; other
// padding is refused (the pools and convolutions import their own padding).
Status pad(OnnxImportContext &c)
{
    const Result<int> rank = c.rank(0, QStringLiteral("data"));
    if (!rank)
        return rank.error();
    std::vector<qint64> pads = c.intsAttribute(QStringLiteral("pads"));
    if (c.hasInput(1)) {
        const Result<const OnnxTensor *> t = c.constant(1, QStringLiteral("pads"));
        if (!t)
            return t.error();
        pads = t.value()->ints;
    }
    for (const qint64 p : pads)
        if (p != 0)
            return c.error(QStringLiteral("pads"), QStringLiteral("padding of its own; the import takes the padding of Conv and the pools"));
    c.forward(0);
    return Status::success();
}

Status constant(OnnxImportContext &c)
{
    for (const OnnxAttributeValue &a : c.node().attributes) {
        using Kind = OnnxAttributeValue::Kind;
        if (a.name == QStringLiteral("value") && a.kind == Kind::Tensor) {
            c.setConstant(a.tensor);
            return Status::success();
        }
        OnnxTensor t;
        if (a.name == QStringLiteral("value_float") && a.kind == Kind::Float)
            t = floatTensor(QString(), {}, {a.floatValue});
        else if (a.name == QStringLiteral("value_floats") && a.kind == Kind::Floats)
            t = floatTensor(QString(), {qint64(a.floats.size())}, a.floats);
        else if ((a.name == QStringLiteral("value_int") && a.kind == Kind::Int) || (a.name == QStringLiteral("value_ints") && a.kind == Kind::Ints)) {
            t.type = OnnxTensor::Type::Int64;
            t.typeName = QStringLiteral("INT64");
            t.ints = a.kind == Kind::Int ? std::vector<qint64>{a.intValue} : a.ints;
            if (a.kind == Kind::Ints)
                t.dims = {qint64(a.ints.size())};
        } else {
            continue;
        }
        c.setConstant(t);
        return Status::success();
    }
    return c.error(QStringLiteral("value"), QStringLiteral("a Constant without a tensor, float or integer value (sparse and string constants are not "
                                                           "supported)"));
}

} // namespace

void addElementwiseImportRules(OnnxImportRules &rules)
{
    rules.add(QStringLiteral("Relu"), elementwise("layer.relu"));
    rules.add(QStringLiteral("Sigmoid"), elementwise("layer.sigmoid"));
    rules.add(QStringLiteral("Tanh"), elementwise("layer.tanh"));
    rules.add(QStringLiteral("Gelu"), gelu);
    rules.add(QStringLiteral("LeakyRelu"), leakyRelu);
    rules.add(QStringLiteral("Clip"), clip);
    rules.add(QStringLiteral("Softmax"), lastAxis("layer.softmax"));
    rules.add(QStringLiteral("LogSoftmax"), lastAxis("layer.log_softmax"));
    rules.add(QStringLiteral("MaxPool"), pool(false));
    rules.add(QStringLiteral("AveragePool"), pool(true));
    rules.add(QStringLiteral("GlobalAveragePool"), globalAveragePool);
    rules.add(QStringLiteral("Flatten"), flatten);
    rules.add(QStringLiteral("Reshape"), reshape);
    rules.add(QStringLiteral("Identity"), identity);
    rules.add(QStringLiteral("Pad"), pad);
    rules.add(QStringLiteral("Dropout"), dropout);
    rules.add(QStringLiteral("Constant"), constant);
}

} // namespace ty
