#include "augmentation_preview.h"

#include "block_registry.h"
#include "detail/compiled_pipeline.h"
#include "detail/device_data.h"
#include "preset_dataset.h"
#include "preset_format.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <optional>

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

// The checks that need no compiled graph: the node, the count, the data set in memory, the sample.
Status checkRequest(const Preset &preset, const LoadedDataset &data, const AugmentationPreviewOptions &options)
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
    return Status();
}

// The preset compiled as for training; an error (at the failing node) when it does not compile.
Result<std::shared_ptr<detail::CompiledPipeline>> compileForPreview(const Preset &preset, const LoadedDataset &data, const QString &nodeId)
{
    try {
        torch::NoGradGuard noGrad;
        auto pipeline = std::make_shared<detail::CompiledPipeline>(detail::compilePipeline(preset, data.shape));
        for (const Issue &issue : pipeline->report.issues)
            if (issue.severity == Severity::Error)
                return Error::atNode(issue.node, tr("the pipeline does not compile: %1").arg(issue.message));
        return pipeline;
    } catch (const std::exception &e) {
        return Error::atNode(nodeId, tr("the preview failed: %1").arg(QString::fromUtf8(e.what())));
    }
}

// The variants through a compiled pipeline: seeded here, so that a pipeline compiled once draws as a new one would.
Result<AugmentationPreview> drawVariants(detail::CompiledPipeline &pipeline, const LoadedDataset &data, const AugmentationPreviewOptions &options)
{
    const QString &nodeId = options.nodeId;
    try {
        torch::NoGradGuard noGrad;
        const int slot = pipeline.model->slotOf(nodeId);
        if (slot < 0)
            return Error::atNode(nodeId, tr("%1 is not on the network's path").arg(nodeId));
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
        QSet<QString> upstream{nodeId};
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
        return Error::atNode(nodeId, tr("the preview failed: %1").arg(QString::fromUtf8(e.what())));
    }
}

Result<LoadedDataset> loadPresetDataset(const Preset &preset, const Node &dataset)
{
    Result<LoadedDataset> data = loadDataset(datasetRequest(preset, dataset));
    if (!data) {
        Error e = data.error();
        if (e.node.isEmpty())
            e.node = dataset.id;
        return e;
    }
    return data;
}

QString compactJson(const QJsonObject &o) { return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact)); }

} // namespace

Result<AugmentationPreview> previewAugmentation(const Preset &preset, const LoadedDataset &data, const AugmentationPreviewOptions &options)
{
    if (const Status checked = checkRequest(preset, data, options); !checked)
        return checked.error();
    Result<std::shared_ptr<detail::CompiledPipeline>> pipeline = compileForPreview(preset, data, options.nodeId);
    if (!pipeline)
        return pipeline.error();
    return drawVariants(*pipeline.value(), data, options);
}

Result<AugmentationPreview> previewAugmentation(const Preset &preset, const AugmentationPreviewOptions &options)
{
    AugmentationPreviewer previewer;
    return previewer.preview(preset, options);
}

struct AugmentationPreviewer::Cache {
    QString dataKey;      // the data set request, as compact JSON
    std::optional<LoadedDataset> data;
    QString pipelineKey;  // the whole preset and the data set request
    std::shared_ptr<detail::CompiledPipeline> pipeline;
};

AugmentationPreviewer::AugmentationPreviewer() : m_cache(std::make_unique<Cache>()) {}
AugmentationPreviewer::~AugmentationPreviewer() = default;

Result<AugmentationPreview> AugmentationPreviewer::preview(const Preset &preset, const AugmentationPreviewOptions &options)
{
    const Node *dataset = firstDatasetNode(preset);
    if (!dataset)
        return Error(tr("the preset has no data set node"));
    const DatasetRequest request = datasetRequest(preset, *dataset);
    const QString dataKey = compactJson(QJsonObject{{QStringLiteral("block"), request.blockType}, {QStringLiteral("params"), request.params},
                                                    {QStringLiteral("base"), request.baseDir}});
    if (!m_cache->data || m_cache->dataKey != dataKey) {
        m_cache->data.reset();
        m_cache->pipeline.reset();
        Result<LoadedDataset> data = loadPresetDataset(preset, *dataset);
        if (!data)
            return data.error();
        m_cache->data = std::move(data.value());
        m_cache->dataKey = dataKey;
        ++m_datasetLoads;
    }
    const LoadedDataset &data = *m_cache->data;
    if (const Status checked = checkRequest(preset, data, options); !checked)
        return checked.error();
    const QString pipelineKey = dataKey + compactJson(presetToJson(preset));
    if (!m_cache->pipeline || m_cache->pipelineKey != pipelineKey) {
        m_cache->pipeline.reset();
        Result<std::shared_ptr<detail::CompiledPipeline>> pipeline = compileForPreview(preset, data, options.nodeId);
        if (!pipeline)
            return pipeline.error();
        m_cache->pipeline = pipeline.value();
        m_cache->pipelineKey = pipelineKey;
        ++m_compilations;
    }
    return drawVariants(*m_cache->pipeline, data, options);
}

} // namespace ty
