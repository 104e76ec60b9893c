// Export rules of the transform blocks. In evaluation the random augmentations do nothing, so they export as
// nothing; normalize becomes (x - mean) / std with the statistics the checkpoint holds as buffers.

#include "onnx_export_rules.h"

namespace ty {

namespace {

Result<QString> passThrough(const PlannedOp &, const QStringList &inputs, OnnxGraphBuilder &)
{
    return inputs.value(0);
}

// The engine's normalize: (x - mean) / std, the buffers shaped [1, C, 1, 1] (or [1, F]) to broadcast per channel.
Result<QString> normalize(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    const Result<QString> mean = graph.weight(op.nodeId, QStringLiteral("mean"));
    if (!mean)
        return mean;
    const Result<QString> stddev = graph.weight(op.nodeId, QStringLiteral("std"));
    if (!stddev)
        return stddev;
    const QString centred = graph.apply(QStringLiteral("Sub"), op.nodeId + QStringLiteral("/sub_mean"), {inputs.value(0), mean.value()});
    return graph.apply(QStringLiteral("Div"), op.nodeId, {centred, stddev.value()});
}

} // namespace

void addTransformExportRules(OnnxExportRules &rules)
{
    rules.add(QStringLiteral("transform.normalize"), normalize);
    rules.add(QStringLiteral("transform.random_hflip"), passThrough);
    rules.add(QStringLiteral("transform.random_crop"), passThrough);
    rules.add(QStringLiteral("transform.gaussian_noise"), passThrough);
    rules.add(QStringLiteral("transform.random_affine"), passThrough);
    rules.add(QStringLiteral("transform.color_jitter"), passThrough);
    rules.add(QStringLiteral("transform.cutout"), passThrough);
}

} // namespace ty
