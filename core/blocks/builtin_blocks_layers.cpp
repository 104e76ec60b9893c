// Network layer blocks. Input sizes (in_features, in_channels) are inferred from the incoming shape.

#include "block_registry.h"
#include "param_values.h"

#include <tuple>

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

// Inputs a and b, and optionally c to h: up to eight batches joined in port order.
BlockDescriptor joiningLayer(const QString &id, const QString &name, const QString &doc, QList<ParamSpec> params = {})
{
    BlockDescriptor d = layer(id, name, doc, std::move(params));
    d.inputs = {port(QStringLiteral("a"), PortKind::Tensor, QStringLiteral("First input batch")),
                port(QStringLiteral("b"), PortKind::Tensor, QStringLiteral("Second input batch"))};
    const char *more[] = {"c", "d", "e", "f", "g", "h"};
    for (int i = 0; i < 6; ++i)
        d.inputs << port(QString::fromLatin1(more[i]), PortKind::Tensor, QStringLiteral("Input batch %1 (optional)").arg(i + 3), false);
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
                        boolParam(QStringLiteral("bias"), true, QStringLiteral("Learn an additive bias"))})
        .withNodeIdPrefix(QStringLiteral("fc")));
    registry.add(layer(QStringLiteral("layer.conv2d"), QStringLiteral("Conv 2D"),
                       QStringLiteral("2-D convolution over [channels, height, width] samples"),
                       {intParam(QStringLiteral("out_channels"), 32, 1, 1e6, QStringLiteral("Number of output channels")),
                        intParam(QStringLiteral("kernel_size"), 3, 1, 1024, QStringLiteral("Kernel side in pixels")),
                        intParam(QStringLiteral("stride"), 1, 1, 1024, QStringLiteral("Step between kernel positions")),
                        intParam(QStringLiteral("padding"), 0, 0, 1024, QStringLiteral("Zero padding on every side")),
                        boolParam(QStringLiteral("bias"), true, QStringLiteral("Learn an additive bias")),
                        intParam(QStringLiteral("groups"), 1, 1, 1e6,
                                 QStringLiteral("Channel groups convolved separately; in and out channels must be multiples "
                                                "(depthwise: as many groups as input channels)"))})
        .withNodeIdPrefix(QStringLiteral("conv")));
    registry.add(layer(QStringLiteral("layer.batchnorm1d"), QStringLiteral("Batch norm 1D"),
                       QStringLiteral("Batch normalisation over the features of [features] samples"), batchNormParams())
        .withNodeIdPrefix(QStringLiteral("bn")));
    registry.add(layer(QStringLiteral("layer.batchnorm2d"), QStringLiteral("Batch norm 2D"),
                       QStringLiteral("Batch normalisation over the channels of [channels, height, width] samples"),
                       batchNormParams()).withNodeIdPrefix(QStringLiteral("bn")));
    registry.add(layer(QStringLiteral("layer.dropout"), QStringLiteral("Dropout"),
                       QStringLiteral("Zeroes each element with probability p while training"),
                       {floatParam(QStringLiteral("p"), 0.5, 0.0, 0.999, QStringLiteral("Probability of dropping an element"))}));
    registry.add(layer(QStringLiteral("layer.maxpool2d"), QStringLiteral("Max pool 2D"),
                       QStringLiteral("Maximum over sliding windows of each channel"), poolParams())
        .withNodeIdPrefix(QStringLiteral("pool")));
    registry.add(layer(QStringLiteral("layer.avgpool2d"), QStringLiteral("Average pool 2D"),
                       QStringLiteral("Average over sliding windows of each channel"), poolParams())
        .withNodeIdPrefix(QStringLiteral("avgpool")));
    registry.add(layer(QStringLiteral("layer.global_avgpool"), QStringLiteral("Global average pool"),
                       QStringLiteral("Averages each channel over height and width: [C, H, W] to [C]"))
        .withNodeIdPrefix(QStringLiteral("gap")));
    registry.add(layer(QStringLiteral("layer.flatten"), QStringLiteral("Flatten"),
                       QStringLiteral("Flattens each sample into one feature vector")));
    registry.add(layer(QStringLiteral("layer.relu"), QStringLiteral("ReLU"), QStringLiteral("max(0, x), element-wise")));
    registry.add(layer(QStringLiteral("layer.relu6"), QStringLiteral("ReLU6"), QStringLiteral("min(max(0, x), 6), element-wise (MobileNet)")));
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
    registry.add(layer(QStringLiteral("layer.log_softmax"), QStringLiteral("Log softmax"),
                       QStringLiteral("Logarithm of the softmax over the last dimension, computed stably (log-probabilities "
                                      "for loss.nll and loss.kl_div)")));
    registry.add(layer(QStringLiteral("layer.silu"), QStringLiteral("SiLU"), QStringLiteral("x * sigmoid(x), element-wise (swish)")));
    registry.add(layer(QStringLiteral("layer.elu"), QStringLiteral("ELU"), QStringLiteral("x for x > 0, alpha * (exp(x) - 1) otherwise"),
                       {floatParam(QStringLiteral("alpha"), 1.0, 0.0, 1e6, QStringLiteral("Value approached for large negative inputs (negated)"))}));
    registry.add(layer(QStringLiteral("layer.embedding"), QStringLiteral("Embedding"),
                       QStringLiteral("Looks each id of a [length] sample up in a learned table: [length, dim] (characters, "
                                      "words, categories)"),
                       {intParam(QStringLiteral("num_embeddings"), 256, 1, 1e7,
                                 QStringLiteral("Number of distinct ids (0 to this minus 1), e.g. the data set's classes")),
                        intParam(QStringLiteral("dim"), 32, 1, 1e5, QStringLiteral("Values per id"))})
        .withNodeIdPrefix(QStringLiteral("embed")));
    for (const auto &[id, name, doc] : {std::tuple{"layer.lstm", "LSTM", "Long short-term memory over [steps, features] samples"},
                                        std::tuple{"layer.gru", "GRU", "Gated recurrent unit over [steps, features] samples"}})
        registry.add(layer(QString::fromLatin1(id), QString::fromLatin1(name), QString::fromLatin1(doc),
                           {intParam(QStringLiteral("hidden_size"), 64, 1, 1e5, QStringLiteral("Values of the state per direction")),
                            intParam(QStringLiteral("num_layers"), 1, 1, 64, QStringLiteral("Recurrent layers stacked")),
                            boolParam(QStringLiteral("bidirectional"), false,
                                      QStringLiteral("Also run backwards and join both directions' outputs")),
                            choiceParam(QStringLiteral("output"), QStringLiteral("last"),
                                        {QStringLiteral("last"), QStringLiteral("sequence")},
                                        QStringLiteral("last: the final state, [hidden]; sequence: every step's output, "
                                                       "[steps, hidden] (times 2 when bidirectional)"))}));
    registry.add(layer(QStringLiteral("layer.conv_transpose2d"), QStringLiteral("Transposed conv 2D"),
                       QStringLiteral("Learned upsampling: the transpose of a 2-D convolution, (size - 1) * stride - 2 * padding + "
                                      "kernel + output_padding"),
                       {intParam(QStringLiteral("out_channels"), 16, 1, 1e6, QStringLiteral("Number of output channels")),
                        intParam(QStringLiteral("kernel_size"), 2, 1, 1024, QStringLiteral("Kernel side in pixels")),
                        intParam(QStringLiteral("stride"), 2, 1, 1024, QStringLiteral("Spacing of the input pixels in the output")),
                        intParam(QStringLiteral("padding"), 0, 0, 1024, QStringLiteral("Pixels taken off each border of the output")),
                        intParam(QStringLiteral("output_padding"), 0, 0, 1023, QStringLiteral("Pixels added to one side (below the stride)")),
                        boolParam(QStringLiteral("bias"), true, QStringLiteral("Learn an additive bias"))}));
    registry.add(layer(QStringLiteral("layer.upsample"), QStringLiteral("Upsample"),
                       QStringLiteral("Enlarges [channels, height, width] samples by a whole factor"),
                       {intParam(QStringLiteral("scale"), 2, 1, 64, QStringLiteral("Factor for height and width")),
                        choiceParam(QStringLiteral("mode"), QStringLiteral("nearest"), {QStringLiteral("nearest"), QStringLiteral("bilinear")},
                                    QStringLiteral("nearest repeats pixels; bilinear interpolates (corners not aligned)"))}));
    registry.add(layer(QStringLiteral("layer.adaptive_avgpool2d"), QStringLiteral("Adaptive avg pool 2D"),
                       QStringLiteral("Averages [channels, height, width] samples down to a fixed output size, whatever the input's"),
                       {intParam(QStringLiteral("output_height"), 1, 1, 4096, QStringLiteral("Output height in pixels")),
                        intParam(QStringLiteral("output_width"), 1, 1, 4096, QStringLiteral("Output width in pixels"))}));
    registry.add(layer(QStringLiteral("layer.group_norm"), QStringLiteral("Group norm"),
                       QStringLiteral("Normalises each sample over groups of channels, with a learned scale and shift per channel "
                                      "(independent of the batch size)"),
                       {intParam(QStringLiteral("groups"), 1, 1, 1e5, QStringLiteral("Groups the channels are divided into")),
                        floatParam(QStringLiteral("eps"), 1e-5, 0.0, 1.0, QStringLiteral("Added to the variance for stability"))}));
    registry.add(layer(QStringLiteral("layer.dropout2d"), QStringLiteral("Dropout 2D"),
                       QStringLiteral("While training, zeroes whole channels of [channels, height, width] samples with probability p"),
                       {floatParam(QStringLiteral("p"), 0.1, 0.0, 0.99, QStringLiteral("Probability of dropping a channel"))}));
    registry.add(layer(QStringLiteral("layer.permute"), QStringLiteral("Permute"),
                       QStringLiteral("Reorders a sample's dimensions ([channels, length] to [length, channels] with 1,0)"),
                       {floatListParam(QStringLiteral("dims"), {1, 0}, QStringLiteral("The input dimension each output dimension takes, from 0"))}));
    registry.add(layer(QStringLiteral("layer.squeeze"), QStringLiteral("Squeeze"),
                       QStringLiteral("Removes a dimension of size 1 from each sample"),
                       {intParam(QStringLiteral("dim"), 0, 0, 63, QStringLiteral("The sample dimension to remove, from 0"))}));
    registry.add(layer(QStringLiteral("layer.unsqueeze"), QStringLiteral("Unsqueeze"),
                       QStringLiteral("Inserts a dimension of size 1 into each sample ([784] to [1, 784] with 0)"),
                       {intParam(QStringLiteral("dim"), 0, 0, 63, QStringLiteral("Where the new dimension goes, from 0"))}));
    registry.add(layer(QStringLiteral("layer.positional_embedding"), QStringLiteral("Positional embedding"),
                       QStringLiteral("Adds a learned vector per position to [steps, features] samples, so that order-blind "
                                      "layers (attention) can tell positions apart")));
    registry.add(layer(QStringLiteral("layer.self_attention"), QStringLiteral("Self-attention"),
                       QStringLiteral("Multi-head self-attention over [steps, features] samples: each step a weighted mix of the "
                                      "steps, weights from learned queries and keys"),
                       {intParam(QStringLiteral("heads"), 4, 1, 1024, QStringLiteral("Attention heads; they divide the features")),
                        boolParam(QStringLiteral("causal"), false, QStringLiteral("Each step sees only itself and earlier steps"))}));
    registry.add(layer(QStringLiteral("layer.transformer_encoder"), QStringLiteral("Transformer encoder"),
                       QStringLiteral("A transformer encoder layer over [steps, features] samples: self-attention and a "
                                      "feed-forward network, each with a residual sum and a layer norm after it"),
                       {intParam(QStringLiteral("heads"), 4, 1, 1024, QStringLiteral("Attention heads; they divide the features")),
                        intParam(QStringLiteral("ff_dim"), 128, 1, 1e6, QStringLiteral("Width of the feed-forward network")),
                        floatParam(QStringLiteral("dropout"), 0.1, 0.0, 0.99, QStringLiteral("Dropout while training")),
                        choiceParam(QStringLiteral("activation"), QStringLiteral("relu"), {QStringLiteral("relu"), QStringLiteral("gelu")},
                                    QStringLiteral("Activation of the feed-forward network")),
                        boolParam(QStringLiteral("causal"), false, QStringLiteral("Each step sees only itself and earlier steps"))}));
    registry.add(joiningLayer(QStringLiteral("layer.add"), QStringLiteral("Add"),
                              QStringLiteral("Element-wise sum of two to eight batches of the same shape (residual connections)")));
    registry.add(joiningLayer(QStringLiteral("layer.concat"), QStringLiteral("Concatenate"),
                              QStringLiteral("Joins two to eight batches, in port order, along a sample dimension (0: channels or features)"),
                               {intParam(QStringLiteral("dim"), 0, 0, 8, QStringLiteral("Sample dimension to join along"))}));
}

} // namespace ty
