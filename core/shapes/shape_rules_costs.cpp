// Cost rules of the transform.* and layer.* blocks: multiply-accumulates per sample in a forward pass, and how
// each changes the receptive field (cost_estimate.h states what is counted; docs/reliability.md, Cost per node).
// A MAC is a product with a weight, or of two activations in a matrix product, added to a sum; element-wise work
// (activations, normalisation, pooling, adding, dropout, the transforms) counts 0.

#include "shape_rule_support.h"
#include "shape_rules.h"

#include <algorithm>

namespace ty {

using namespace shaperules;

namespace {

double valuesOf(const SampleShape &shape)
{
    double n = 1;
    for (const int64_t d : shape)
        n *= double(d);
    return n;
}

FieldStep keepField() { return FieldStep{FieldStep::Keep, {}, {}}; }
FieldStep endField() { return FieldStep{FieldStep::End, {}, {}}; }

FieldStep windowField(const SlidingWindow &w, size_t axes)
{
    return FieldStep{FieldStep::Window, std::vector<int64_t>(axes, w.kernel), std::vector<int64_t>(axes, w.stride)};
}

OpCost positionWise(const QJsonObject &, const std::vector<SampleShape> &, const SampleShape &)
{
    return OpCost{0, keepField()};
}

OpCost reshaping(const QJsonObject &, const std::vector<SampleShape> &, const SampleShape &)
{
    return OpCost{0, endField()};
}

// Every output value is a sum over the input's last dimension: out values x in features.
OpCost linearCost(const QJsonObject &, const std::vector<SampleShape> &inputs, const SampleShape &output)
{
    return OpCost{valuesOf(output) * double(firstInput(inputs).back()), endField()};
}

// Every output value sums kernel x kernel x (in_channels / groups) products: out_h x out_w x out_c x k x k x in_c / groups.
OpCost conv2dCost(const QJsonObject &params, const std::vector<SampleShape> &inputs, const SampleShape &output)
{
    const SlidingWindow w = slidingWindow(params);
    const double groups = double(std::max<int64_t>(1, intParam(params, "groups")));
    return OpCost{valuesOf(output) * double(w.kernel * w.kernel) * double(firstInput(inputs)[0]) / groups, windowField(w, 2)};
}

// out_length x out_c x k x in_c.
OpCost conv1dCost(const QJsonObject &params, const std::vector<SampleShape> &inputs, const SampleShape &output)
{
    const SlidingWindow w = slidingWindow(params);
    return OpCost{valuesOf(output) * double(w.kernel) * double(firstInput(inputs)[0]), windowField(w, 1)};
}

// Every input value is multiplied into a k x k window of every output channel: in_h x in_w x in_c x out_c x k x k.
// Its field is not tracked (upsampling makes the stride a fraction of a position).
OpCost convTranspose2dCost(const QJsonObject &params, const std::vector<SampleShape> &inputs, const SampleShape &output)
{
    const SlidingWindow w = slidingWindow(params);
    return OpCost{valuesOf(firstInput(inputs)) * double(output[0]) * double(w.kernel * w.kernel), endField()};
}

OpCost poolCost(const QJsonObject &params, const std::vector<SampleShape> &, const SampleShape &)
{
    return OpCost{0, windowField(slidingWindow(params), 2)};
}

// One window over the whole height and width.
OpCost globalAvgPoolCost(const QJsonObject &, const std::vector<SampleShape> &inputs, const SampleShape &)
{
    const SampleShape in = firstInput(inputs);
    return OpCost{0, FieldStep{FieldStep::Window, {in[1], in[2]}, {in[1], in[2]}}};
}

// torch's adaptive windows: the i-th of `out` spans floor(i * in / out) to ceil((i + 1) * in / out). The field
// takes the largest window and the largest step between two windows' starts.
OpCost adaptiveAvgPoolCost(const QJsonObject &params, const std::vector<SampleShape> &inputs, const SampleShape &)
{
    const SampleShape in = firstInput(inputs);
    FieldStep field{FieldStep::Window, {}, {}};
    const int64_t outs[] = {intParam(params, "output_height"), intParam(params, "output_width")};
    for (int axis = 0; axis < 2; ++axis) {
        const int64_t n = in[size_t(axis) + 1], out = outs[axis];
        int64_t kernel = 0;
        for (int64_t i = 0; i < out; ++i)
            kernel = std::max(kernel, ((i + 1) * n + out - 1) / out - (i * n) / out);
        field.kernel.push_back(kernel);
        field.stride.push_back((n + out - 1) / out);
    }
    return OpCost{0, field};
}

// Per step, layer and direction, each gate multiplies the layer's input and the hidden state by its weights:
// gates x hidden x (width + hidden), width being the features for the first layer and hidden x directions after.
OpCost recurrentCost(const QJsonObject &params, const std::vector<SampleShape> &inputs, int64_t gates)
{
    const SampleShape in = firstInput(inputs);
    const double hidden = double(intParam(params, "hidden_size"));
    const double directions = boolParam(params, "bidirectional") ? 2 : 1;
    double perStep = 0;
    for (int64_t layer = 0; layer < intParam(params, "num_layers"); ++layer) {
        const double width = layer == 0 ? double(in[1]) : hidden * directions;
        perStep += directions * double(gates) * hidden * (width + hidden);
    }
    return OpCost{double(in[0]) * perStep, endField()};
}

OpCost lstmCost(const QJsonObject &params, const std::vector<SampleShape> &inputs, const SampleShape &)
{
    return recurrentCost(params, inputs, 4);
}

OpCost gruCost(const QJsonObject &params, const std::vector<SampleShape> &inputs, const SampleShape &)
{
    return recurrentCost(params, inputs, 3);
}

// Over L steps of E features: the query, key and value projections 3 L E^2, the scores of every pair of steps
// L^2 E (each head's E / heads features, summed over the heads), the weighted sum of the values L^2 E and the
// output projection L E^2. A causal mask does not make LibTorch compute fewer scores.
double attentionMacs(const SampleShape &in)
{
    const double steps = double(in[0]), features = double(in[1]);
    return 4 * steps * features * features + 2 * steps * steps * features;
}

OpCost selfAttentionCost(const QJsonObject &, const std::vector<SampleShape> &inputs, const SampleShape &)
{
    return OpCost{attentionMacs(firstInput(inputs)), endField()};
}

// Self-attention, then the feed-forward network's two linear layers: 2 L E ff.
OpCost transformerEncoderCost(const QJsonObject &params, const std::vector<SampleShape> &inputs, const SampleShape &)
{
    const SampleShape in = firstInput(inputs);
    return OpCost{attentionMacs(in) + 2 * double(in[0]) * double(in[1]) * double(intParam(params, "ff_dim")), endField()};
}

} // namespace

void addCostRules(ShapeRules &rules)
{
    const auto add = [&](const char *typeId, OpCostRule rule) { rules.costs.add(QString::fromLatin1(typeId), rule); };
    for (const char *transform : {"transform.normalize", "transform.random_hflip", "transform.random_crop", "transform.gaussian_noise",
                                  "transform.random_affine", "transform.color_jitter", "transform.cutout"})
        add(transform, positionWise);
    add("layer.linear", linearCost);
    add("layer.conv2d", conv2dCost);
    add("layer.conv1d", conv1dCost);
    add("layer.conv_transpose2d", convTranspose2dCost);
    add("layer.maxpool2d", poolCost);
    add("layer.avgpool2d", poolCost);
    add("layer.global_avgpool", globalAvgPoolCost);
    add("layer.adaptive_avgpool2d", adaptiveAvgPoolCost);
    for (const char *keep : {"layer.batchnorm1d", "layer.batchnorm2d", "layer.group_norm", "layer.dropout", "layer.dropout2d", "layer.relu", "layer.relu6",
                             "layer.leaky_relu", "layer.gelu", "layer.tanh", "layer.sigmoid", "layer.silu", "layer.elu", "layer.add",
                             "layer.concat"})
        add(keep, positionWise);
    // Over the last dimension (the width of an image) or the grid left behind: no field after them.
    for (const char *end : {"layer.layer_norm", "layer.softmax", "layer.log_softmax", "layer.flatten", "layer.reshape", "layer.permute",
                            "layer.squeeze", "layer.unsqueeze", "layer.upsample", "layer.embedding", "layer.positional_embedding"})
        add(end, reshaping);
    add("layer.lstm", lstmCost);
    add("layer.gru", gruCost);
    add("layer.self_attention", selfAttentionCost);
    add("layer.transformer_encoder", transformerEncoderCost);
}

} // namespace ty
