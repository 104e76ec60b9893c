#include "augmentation_preview.h"

#include "block_registry.h"
#include "detail/compiled_pipeline.h"
#include "detail/device_data.h"
#include "preset_dataset.h"

#include <QCoreApplication>
#include <QSet>

#include <algorithm>

namespace ty {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("AugmentationPreview", text); }

std::vector<float> values(const torch::Tensor &t)
{
    const torch::Tensor flat = t.contiguous().to(torch::kFloat).flatten();
    return std::vector<float>(flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel());
}

// Sample `index` of `split` alone, as a split of one (its bytes or floats copied, nothing else).
DataSplit oneSample(const DataSplit &split, int64_t index)
{
    DataSplit one;
    one.x.sampleShape = split.x.sampleShape;
    one.x.isFloat = split.x.isFloat;
    one.x.scale = split.x.scale;
    one.x.count = 1;
    const int64_t size = split.x.sampleSize();
    if (split.x.isFloat)
        one.x.floats.assign(split.x.floats.begin() + index * size, split.x.floats.begin() + (index + 1) * size);
    else
        one.x.bytes.assign(split.x.bytes.begin() + index * size, split.x.bytes.begin() + (index + 1) * size);
    one.y.classification = split.y.classification;
    one.y.count = 1;
    one.y.classes = {0};
    return one;
}

} // namespace

Result<AugmentationPreview> previewAugmentation(const Preset &preset, const LoadedDataset &data, const AugmentationPreviewOptions &options)
{
    const Node *node = preset.graph.node(options.nodeId);
    if (!node)
        return Error(tr("no node %1 in the preset").arg(options.nodeId));
    const BlockDescriptor *block = BlockRegistry::builtin().find(node->block);
    if (!block || block->category != BlockCategory::Transform)
        return Error::atNode(node->id, tr("%1 is not a transform (%2): only transform blocks have a preview").arg(node->id, node->block));
    if (options.count < 1 || options.count > 256)
        return Error::atNode(node->id, tr("the preview shows 1 to 256 variants, not %1").arg(options.count));
    if (data.train.x.store)
        return Error::atNode(node->id, tr("the data set is streamed from disk; its preview needs it in memory"));
    if (options.sample < 0 || options.sample >= data.train.size())
        return Error::atNode(node->id, tr("sample %1 is not in the training split (%2 samples)").arg(options.sample).arg(data.train.size()));
    try {
        torch::NoGradGuard noGrad;
        detail::CompiledPipeline pipeline = detail::compilePipeline(preset, data.shape);
        for (const Issue &issue : pipeline.report.issues)
            if (issue.severity == Severity::Error)
                return Error::atNode(issue.node, tr("the pipeline does not compile: %1").arg(issue.message));
        const int slot = pipeline.model->slotOf(node->id);
        if (slot < 0)
            return Error::atNode(node->id, tr("%1 is not on the network's path").arg(node->id));
        // The batch as training draws it: the split on the device, `count` rows of the sample by index_select.
        const detail::DeviceSplit split = detail::toDevice(oneSample(data.train, options.sample), torch::kCPU);
        const torch::Tensor batch = split.rows(torch::zeros({options.count}, torch::kLong));
        pipeline.model->train(true);
        torch::manual_seed(options.seed);
        const torch::Tensor out = pipeline.model->forward(batch, slot);

        AugmentationPreview preview;
        preview.sampleShape = data.train.x.sampleShape;
        preview.original = values(batch[0]);
        preview.variantShape.assign(out.sizes().begin() + 1, out.sizes().end());
        for (int64_t i = 0; i < out.size(0); ++i)
            preview.variants.push_back(values(out[i]));
        // The node and the ops it reads from, directly or not: walked back through the planned (topological) order.
        QSet<QString> upstream{node->id};
        for (auto op = pipeline.plan.ops.rbegin(); op != pipeline.plan.ops.rend(); ++op)
            if (upstream.contains(op->nodeId))
                for (const QString &input : op->inputs)
                    upstream.insert(input);
        for (const PlannedOp &op : pipeline.plan.ops) {
            const BlockDescriptor *opBlock = BlockRegistry::builtin().find(op.blockType);
            if (upstream.contains(op.nodeId) && opBlock && opBlock->category == BlockCategory::Transform)
                preview.transforms.append(op.nodeId);
        }
        return preview;
    } catch (const std::exception &e) {
        return Error::atNode(node->id, tr("the preview failed: %1").arg(QString::fromUtf8(e.what())));
    }
}

Result<AugmentationPreview> previewAugmentation(const Preset &preset, const AugmentationPreviewOptions &options)
{
    const Node *dataset = firstDatasetNode(preset);
    if (!dataset)
        return Error(tr("the preset has no data set node"));
    Result<LoadedDataset> data = loadDataset(datasetRequest(preset, *dataset));
    if (!data) {
        Error e = data.error();
        if (e.node.isEmpty())
            e.node = dataset->id;
        return e;
    }
    return previewAugmentation(preset, data.value(), options);
}

} // namespace ty
