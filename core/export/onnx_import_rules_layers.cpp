// Import rules of the ONNX ops that become layers with weights (Conv, Gemm, MatMul, BatchNormalization) and of the
// ops that join tensors (Add, Concat). Each reads what PyTorch's exporter (torch 1.13, opsets 11 to 17) writes and
// refuses, naming the attribute, what the Trainyard block would compute differently.

#include "onnx_import_rules.h"

namespace ty {

namespace {

OnnxTensor renamed(const OnnxTensor &tensor, const QString &name)
{
    OnnxTensor t = tensor;
    t.name = name;
    return t;
}

// A float constant of exactly `dims`, else an Error naming `field`.
Result<const OnnxTensor *> floatConstant(const OnnxImportContext &c, int index, const QString &field, int rank)
{
    Result<const OnnxTensor *> t = c.constant(index, field);
    if (!t)
        return t;
    if (t.value()->type != OnnxTensor::Type::Float)
        return c.error(field, QStringLiteral("input %1 holds %2 values; weights must be floating point").arg(index).arg(t.value()->typeName));
    if (rank >= 0 && int(t.value()->dims.size()) != rank)
        return c.error(field, QStringLiteral("input %1 has shape %2; %3 dimensions were expected").arg(index).arg(t.value()->shapeText()).arg(rank));
    return t;
}

// A bias of `size` values, written as [size] or [1, size].
Result<OnnxTensor> biasOf(const OnnxImportContext &c, int index, const QString &field, qint64 size, float scale)
{
    Result<const OnnxTensor *> b = floatConstant(c, index, field, -1);
    if (!b)
        return b.error();
    if (b.value()->elementCount() != size || b.value()->dims.empty() || b.value()->dims.back() != size)
        return c.error(field, QStringLiteral("the bias has shape %1; a bias of [%2] was expected").arg(b.value()->shapeText()).arg(size));
    OnnxTensor bias = floatTensor(QStringLiteral("bias"), {size}, b.value()->floats);
    for (float &v : bias.floats)
        v *= scale;
    return bias;
}

std::vector<float> transposed(const std::vector<float> &m, qint64 rows, qint64 cols)
{
    std::vector<float> t(m.size());
    for (qint64 r = 0; r < rows; ++r)
        for (qint64 col = 0; col < cols; ++col)
            t[size_t(col * rows + r)] = m[size_t(r * cols + col)];
    return t;
}

Status conv(OnnxImportContext &c)
{
    const Result<int> rank = c.rank(0, QStringLiteral("X"));
    if (!rank)
        return rank.error();
    if (rank.value() != 4 && rank.value() != 3)
        return c.error(QStringLiteral("X"), QStringLiteral("a convolution over %1 dimensions; the import takes 1-D and 2-D ones").arg(rank.value() - 2));
    const int spatial = rank.value() - 2;
    const Result<const OnnxTensor *> w = floatConstant(c, 1, QStringLiteral("W"), rank.value());
    if (!w)
        return w.error();
    const OnnxTensor &weight = *w.value();
    // Grouped (MobileNet's depthwise) 2-D convolutions: layer.conv2d's groups; W is [out, in / group, k, k] in both.
    const qint64 groups = c.intAttribute(QStringLiteral("group"), 1);
    if (groups < 1)
        return c.error(QStringLiteral("group"), QStringLiteral("group %1; at least 1 was expected").arg(groups));
    if (groups != 1 && spatial != 2)
        return c.error(QStringLiteral("group"), QStringLiteral("a grouped 1-D convolution (group %1); layer.conv1d has no groups").arg(groups));
    const Result<SlidingWindowParams> window = readSlidingWindow(c, spatial, std::vector<qint64>(weight.dims.begin() + 2, weight.dims.end()));
    if (!window)
        return window.error();
    const qint64 outChannels = weight.dims[0];
    QJsonObject params{{QStringLiteral("out_channels"), double(outChannels)},
                       {QStringLiteral("kernel_size"), double(window.value().kernel)},
                       {QStringLiteral("stride"), double(window.value().stride)},
                       {QStringLiteral("padding"), double(window.value().padding)},
                       {QStringLiteral("bias"), c.hasInput(2)}};
    if (groups != 1)
        params.insert(QStringLiteral("groups"), double(groups));
    QList<OnnxTensor> weights{renamed(weight, QStringLiteral("weight"))};
    if (c.hasInput(2)) {
        Result<OnnxTensor> bias = biasOf(c, 2, QStringLiteral("B"), outChannels, 1.0f);
        if (!bias)
            return bias.error();
        weights << bias.value();
    }
    c.addLayer(spatial == 2 ? QStringLiteral("layer.conv2d") : QStringLiteral("layer.conv1d"), params, {0}, weights, rank.value());
    return Status::success();
}

// A linear layer from a weight matrix of [out, in] and an optional bias.
Status linear(OnnxImportContext &c, int rank, OnnxTensor weight, std::optional<OnnxTensor> bias)
{
    const qint64 outFeatures = weight.dims[0];
    QList<OnnxTensor> weights{renamed(weight, QStringLiteral("weight"))};
    if (bias)
        weights << *bias;
    c.addLayer(QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), double(outFeatures)}, {QStringLiteral("bias"), bool(bias)}}, {0},
               weights, rank);
    return Status::success();
}

Status gemm(OnnxImportContext &c)
{
    const Result<int> rank = c.rank(0, QStringLiteral("A"));
    if (!rank)
        return rank.error();
    if (rank.value() != 2)
        return c.error(QStringLiteral("A"), QStringLiteral("Gemm of a rank-%1 input; a linear layer takes [N, features]").arg(rank.value()));
    if (c.intAttribute(QStringLiteral("transA"), 0) != 0)
        return c.error(QStringLiteral("transA"), QStringLiteral("a transposed input (transA 1) is not a linear layer"));
    const Result<const OnnxTensor *> b = floatConstant(c, 1, QStringLiteral("B"), 2);
    if (!b)
        return b.error();
    const bool transB = c.intAttribute(QStringLiteral("transB"), 0) != 0;
    const float alpha = c.floatAttribute(QStringLiteral("alpha"), 1.0f), beta = c.floatAttribute(QStringLiteral("beta"), 1.0f);
    const qint64 rows = b.value()->dims[0], cols = b.value()->dims[1];
    OnnxTensor weight = transB ? *b.value() : floatTensor(QString(), {cols, rows}, transposed(b.value()->floats, rows, cols));
    for (float &v : weight.floats)
        v *= alpha;
    std::optional<OnnxTensor> bias;
    if (c.hasInput(2)) {
        Result<OnnxTensor> read = biasOf(c, 2, QStringLiteral("C"), weight.dims[0], beta);
        if (!read)
            return read.error();
        bias = read.value();
    }
    return linear(c, 2, weight, bias);
}

// MatMul by a constant [in, out] matrix, with the bias of a following Add when the patterns joined one (input 2).
Status matMul(OnnxImportContext &c)
{
    const Result<int> rank = c.rank(0, QStringLiteral("A"));
    if (!rank)
        return rank.error();
    if (rank.value() < 2)
        return c.error(QStringLiteral("A"), QStringLiteral("MatMul of a rank-1 input"));
    const Result<const OnnxTensor *> b = floatConstant(c, 1, QStringLiteral("B"), 2);
    if (!b)
        return b.error();
    const qint64 rows = b.value()->dims[0], cols = b.value()->dims[1];
    const OnnxTensor weight = floatTensor(QString(), {cols, rows}, transposed(b.value()->floats, rows, cols));
    std::optional<OnnxTensor> bias;
    if (c.hasInput(2)) {
        Result<OnnxTensor> read = biasOf(c, 2, QStringLiteral("bias"), cols, 1.0f);
        if (!read)
            return read.error();
        bias = read.value();
    }
    return linear(c, rank.value(), weight, bias);
}

Status batchNormalization(OnnxImportContext &c)
{
    const Result<int> rank = c.rank(0, QStringLiteral("X"));
    if (!rank)
        return rank.error();
    if (rank.value() != 4 && rank.value() != 2)
        return c.error(QStringLiteral("X"), QStringLiteral("batch norm of a rank-%1 input; the import takes [N, C, H, W] and [N, C]").arg(rank.value()));
    if (c.intAttribute(QStringLiteral("training_mode"), 0) != 0)
        return c.error(QStringLiteral("training_mode"), QStringLiteral("batch norm in training mode; export the model in evaluation mode"));
    for (int i = 1; i < c.node().outputs.size(); ++i)
        if (!c.node().outputs.at(i).isEmpty())
            return c.error(QStringLiteral("outputs"), QStringLiteral("the running statistics are outputs (training mode); export the model in evaluation mode"));
    QList<OnnxTensor> weights;
    const char *names[] = {"weight", "bias", "running_mean", "running_var"};
    const char *fields[] = {"scale", "B", "input_mean", "input_var"};
    qint64 channels = -1;
    for (int i = 0; i < 4; ++i) {
        const Result<const OnnxTensor *> t = floatConstant(c, i + 1, QString::fromLatin1(fields[i]), 1);
        if (!t)
            return t.error();
        if (channels >= 0 && t.value()->dims[0] != channels)
            return c.error(QString::fromLatin1(fields[i]), QStringLiteral("has shape %1; [%2] was expected").arg(t.value()->shapeText()).arg(channels));
        channels = t.value()->dims[0];
        weights << renamed(*t.value(), QString::fromLatin1(names[i]));
    }
    const QJsonObject params{{QStringLiteral("eps"), double(c.floatAttribute(QStringLiteral("epsilon"), 1e-5f))},
                             {QStringLiteral("momentum"), 1.0 - double(c.floatAttribute(QStringLiteral("momentum"), 0.9f))}};
    c.addLayer(rank.value() == 4 ? QStringLiteral("layer.batchnorm2d") : QStringLiteral("layer.batchnorm1d"), params, {0}, weights, rank.value());
    return Status::success();
}

Status add(OnnxImportContext &c)
{
    for (int i = 0; i < 2; ++i)
        if (c.isConstant(i))
            return c.error(i == 0 ? QStringLiteral("A") : QStringLiteral("B"),
                           QStringLiteral("adds a constant; the import takes Add of two computed tensors (a residual connection) and the "
                                          "bias of a MatMul"));
    const Result<int> a = c.rank(0, QStringLiteral("A")), b = c.rank(1, QStringLiteral("B"));
    if (!a)
        return a.error();
    if (!b)
        return b.error();
    c.addLayer(QStringLiteral("layer.add"), {}, {0, 1}, {}, std::max(a.value(), b.value()));
    return Status::success();
}

Status concat(OnnxImportContext &c)
{
    const int count = int(c.node().inputs.size());
    if (count < 2 || count > 8)
        return c.error(QStringLiteral("inputs"), QStringLiteral("joins %1 tensors; layer.concat joins 2 to 8").arg(count));
    QList<int> indices;
    int rank = 0;
    for (int i = 0; i < count; ++i) {
        const Result<int> r = c.rank(i, QStringLiteral("inputs"));
        if (!r)
            return r.error();
        rank = r.value();
        indices << i;
    }
    qint64 axis = c.intAttribute(QStringLiteral("axis"), 1);
    if (axis < 0)
        axis += rank;
    if (axis < 1 || axis >= rank)
        return c.error(QStringLiteral("axis"), QStringLiteral("joins along axis %1 of rank-%2 tensors; the batch axis (0) cannot be joined")
                                                   .arg(c.intAttribute(QStringLiteral("axis"), 1)).arg(rank));
    c.addLayer(QStringLiteral("layer.concat"), {{QStringLiteral("dim"), double(axis - 1)}}, indices, {}, rank);
    return Status::success();
}

} // namespace

void addLayerImportRules(OnnxImportRules &rules)
{
    rules.add(QStringLiteral("Conv"), conv);
    rules.add(QStringLiteral("Gemm"), gemm);
    rules.add(QStringLiteral("MatMul"), matMul);
    rules.add(QStringLiteral("BatchNormalization"), batchNormalization);
    rules.add(QStringLiteral("Add"), add);
    rules.add(QStringLiteral("Concat"), concat);
}

} // namespace ty
