// Network layer blocks. Input sizes (in_features, in_channels) are inferred from the incoming shape.

#include "block_registry.h"
#include "param_values.h"

namespace ty {

using namespace spec;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

BlockDescriptor layer(const QString &id, const QString &name, const QString &doc, QList<ParamSpec> params = {})
{
    BlockDescriptor d;
    d.typeId = id;
    d.category = BlockCategory::Layer;
    d.displayName = name;
    d.doc = doc;
    d.inputs = {port(QStringLiteral("in"), PortKind::Tensor, QStringLiteral("Input batch"))};
    d.outputs = {port(QStringLiteral("out"), PortKind::Tensor, QStringLiteral("Output batch"))};
    d.params = std::move(params);
    return d;
}

BlockDescriptor twoInputLayer(const QString &id, const QString &name, const QString &doc, QList<ParamSpec> params = {})
{
    BlockDescriptor d = layer(id, name, doc, std::move(params));
    d.inputs = {port(QStringLiteral("a"), PortKind::Tensor, QStringLiteral("First input batch")),
                port(QStringLiteral("b"), PortKind::Tensor, QStringLiteral("Second input batch"))};
    return d;
}

QList<ParamSpec> poolParams()
{
    return {intParam(QStringLiteral("kernel_size"), 2, 1, 1024, QStringLiteral("Window size in pixels")),
            intParam(QStringLiteral("stride"), 0, 0, 1024, QStringLiteral("Step between windows (0: the kernel size)")),
            intParam(QStringLiteral("padding"), 0, 0, 1024, QStringLiteral("Zero padding on every side"))};
}

QList<ParamSpec> batchNormParams()
{
    return {floatParam(QStringLiteral("momentum"), 0.1, 0.0, 1.0, QStringLiteral("Weight of each batch in the running statistics")),
            floatParam(QStringLiteral("eps"), 1e-5, 0.0, 1.0, QStringLiteral("Added to the variance for stability"))};
}

} // namespace

void addLayerBlocks(BlockRegistry &registry)
{
    registry.add(layer(QStringLiteral("layer.linear"), QStringLiteral("Linear"),
                       QStringLiteral("Fully connected layer: y = x W^T + b over the last dimension"),
                       {intParam(QStringLiteral("out_features"), 64, 1, 1e7, QStringLiteral("Number of output features")),
                        boolParam(QStringLiteral("bias"), true, QStringLiteral("Learn an additive bias"))}));
    registry.add(layer(QStringLiteral("layer.conv2d"), QStringLiteral("Conv 2D"),
                       QStringLiteral("2-D convolution over [channels, height, width] samples"),
                       {intParam(QStringLiteral("out_channels"), 32, 1, 1e6, QStringLiteral("Number of output channels")),
                        intParam(QStringLiteral("kernel_size"), 3, 1, 1024, QStringLiteral("Kernel side in pixels")),
                        intParam(QStringLiteral("stride"), 1, 1, 1024, QStringLiteral("Step between kernel positions")),
                        intParam(QStringLiteral("padding"), 0, 0, 1024, QStringLiteral("Zero padding on every side")),
                        boolParam(QStringLiteral("bias"), true, QStringLiteral("Learn an additive bias"))}));
    registry.add(layer(QStringLiteral("layer.batchnorm1d"), QStringLiteral("Batch norm 1D"),
                       QStringLiteral("Batch normalisation over the features of [features] samples"), batchNormParams()));
    registry.add(layer(QStringLiteral("layer.batchnorm2d"), QStringLiteral("Batch norm 2D"),
                       QStringLiteral("Batch normalisation over the channels of [channels, height, width] samples"),
                       batchNormParams()));
    registry.add(layer(QStringLiteral("layer.dropout"), QStringLiteral("Dropout"),
                       QStringLiteral("Zeroes each element with probability p while training"),
                       {floatParam(QStringLiteral("p"), 0.5, 0.0, 0.999, QStringLiteral("Probability of dropping an element"))}));
    registry.add(layer(QStringLiteral("layer.maxpool2d"), QStringLiteral("Max pool 2D"),
                       QStringLiteral("Maximum over sliding windows of each channel"), poolParams()));
    registry.add(layer(QStringLiteral("layer.avgpool2d"), QStringLiteral("Average pool 2D"),
                       QStringLiteral("Average over sliding windows of each channel"), poolParams()));
    registry.add(layer(QStringLiteral("layer.global_avgpool"), QStringLiteral("Global average pool"),
                       QStringLiteral("Averages each channel over height and width: [C, H, W] to [C]")));
    registry.add(layer(QStringLiteral("layer.flatten"), QStringLiteral("Flatten"),
                       QStringLiteral("Flattens each sample into one feature vector")));
    registry.add(layer(QStringLiteral("layer.relu"), QStringLiteral("ReLU"), QStringLiteral("max(0, x), element-wise")));
    registry.add(layer(QStringLiteral("layer.leaky_relu"), QStringLiteral("Leaky ReLU"),
                       QStringLiteral("x for x > 0, slope * x otherwise"),
                       {floatParam(QStringLiteral("negative_slope"), 0.01, 0.0, kInf, QStringLiteral("Slope for negative inputs"))}));
    registry.add(layer(QStringLiteral("layer.gelu"), QStringLiteral("GELU"), QStringLiteral("Gaussian error linear unit")));
    registry.add(layer(QStringLiteral("layer.tanh"), QStringLiteral("Tanh"), QStringLiteral("Hyperbolic tangent, element-wise")));
    registry.add(layer(QStringLiteral("layer.sigmoid"), QStringLiteral("Sigmoid"), QStringLiteral("Logistic function, element-wise")));
    registry.add(layer(QStringLiteral("layer.conv1d"), QStringLiteral("Conv 1D"),
                       QStringLiteral("1-D convolution over [channels, length] samples (sequences, signals)"),
                       {intParam(QStringLiteral("out_channels"), 32, 1, 1e6, QStringLiteral("Number of output channels")),
                        intParam(QStringLiteral("kernel_size"), 3, 1, 1024, QStringLiteral("Kernel length")),
                        intParam(QStringLiteral("stride"), 1, 1, 1024, QStringLiteral("Step between kernel positions")),
                        intParam(QStringLiteral("padding"), 0, 0, 1024, QStringLiteral("Zero padding at both ends")),
                        boolParam(QStringLiteral("bias"), true, QStringLiteral("Learn an additive bias"))}));
    registry.add(layer(QStringLiteral("layer.layer_norm"), QStringLiteral("Layer norm"),
                       QStringLiteral("Normalises each sample over its last dimension, with a learned scale and shift"),
                       {floatParam(QStringLiteral("eps"), 1e-5, 0.0, 1.0, QStringLiteral("Added to the variance for stability"))}));
    registry.add(layer(QStringLiteral("layer.reshape"), QStringLiteral("Reshape"),
                       QStringLiteral("Gives each sample another shape with the same number of values ([784] to [1, 28, 28])"),
                       {floatListParam(QStringLiteral("shape"), {-1},
                                       QStringLiteral("Sample dimensions, e.g. 1,28,28; one of them may be -1: what is left"))}));
    registry.add(layer(QStringLiteral("layer.softmax"), QStringLiteral("Softmax"),
                       QStringLiteral("Exponentials normalised to sum to 1 over the last dimension (attention weights, "
                                      "probabilities; a loss takes logits)")));
    registry.add(layer(QStringLiteral("layer.silu"), QStringLiteral("SiLU"), QStringLiteral("x * sigmoid(x), element-wise (swish)")));
    registry.add(layer(QStringLiteral("layer.elu"), QStringLiteral("ELU"), QStringLiteral("x for x > 0, alpha * (exp(x) - 1) otherwise"),
                       {floatParam(QStringLiteral("alpha"), 1.0, 0.0, 1e6, QStringLiteral("Value approached for large negative inputs (negated)"))}));
    registry.add(twoInputLayer(QStringLiteral("layer.add"), QStringLiteral("Add"),
                               QStringLiteral("Element-wise sum of two batches of the same shape (residual connections)")));
    registry.add(twoInputLayer(QStringLiteral("layer.concat"), QStringLiteral("Concatenate"),
                               QStringLiteral("Joins two batches along a sample dimension (0: channels or features)"),
                               {intParam(QStringLiteral("dim"), 0, 0, 8, QStringLiteral("Sample dimension to join along"))}));
}

} // namespace ty
