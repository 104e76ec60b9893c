#include "fine_tune_preset.h"

#include "block_registry.h"
#include "training_stages.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace ty {

namespace {

BlockCategory categoryOf(const Node &node)
{
    const BlockDescriptor *block = BlockRegistry::builtin().find(node.block);
    return block ? block->category : BlockCategory::Dataset;  // an unknown block is never frozen nor a head
}

bool isLayerWithParameters(const Node &node, const ShapeReport &report)
{
    return categoryOf(node) == BlockCategory::Layer && report.nodes.value(node.id).paramCount > 0;
}

} // namespace

QStringList headNodes(const PipelineGraph &graph, const ShapeReport &report)
{
    QSet<QString> heads, visited;
    QList<QString> pending;
    for (const Node &node : graph.nodes)
        if (categoryOf(node) == BlockCategory::Loss)
            pending << node.id;
    while (!pending.isEmpty()) {
        const QString id = pending.takeFirst();
        for (const Edge &edge : graph.edgesInto(id)) {
            const Node *from = graph.node(edge.from.node);
            if (!from || visited.contains(from->id))
                continue;
            visited.insert(from->id);
            const BlockDescriptor *block = BlockRegistry::builtin().find(from->block);
            const PortSpec *port = block ? block->output(edge.from.port) : nullptr;
            if (!port || port->kind != PortKind::Tensor)
                continue;  // targets come from the dataset
            if (isLayerWithParameters(*from, report))
                heads.insert(from->id);
            else
                pending << from->id;
        }
    }
    QStringList ordered;
    for (const Node &node : graph.nodes)
        if (heads.contains(node.id))
            ordered << node.id;
    return ordered;
}

Result<Preset> fineTunePreset(const Preset &trained, const FineTuneSource &source, const ShapeReport &report)
{
    const PipelineGraph &graph = trained.graph;
    const Node *optimizer = nullptr;
    for (const Node &node : graph.nodes)
        if (categoryOf(node) == BlockCategory::Optimizer)
            optimizer = &node;
    if (!optimizer)
        return Error(QStringLiteral("run #%1's preset has no optimizer").arg(source.runId));
    const QStringList heads = headNodes(graph, report);
    if (heads.isEmpty())
        return Error(QStringLiteral("run #%1's preset has no layer with parameters feeding a loss").arg(source.runId));
    QStringList frozen;
    for (const Node &node : graph.nodes)
        if (isLayerWithParameters(node, report) && !heads.contains(node.id))
            frozen << node.id;
    if (frozen.isEmpty())
        return Error(QStringLiteral("run #%1's network has no layer to freeze besides its head (%2)")
                         .arg(source.runId)
                         .arg(heads.join(QStringLiteral(", "))));

    const int trainedEpochs = std::max(1, totalEpochs(planStages(trained)));
    const QJsonArray frozenIds = QJsonArray::fromStringList(frozen);
    const QJsonObject head{{QStringLiteral("name"), QStringLiteral("head")},
                           {QStringLiteral("epochs"), trainedEpochs <= 3 ? 1 : 2},
                           {QStringLiteral("freeze"), frozenIds}};
    QJsonObject all{{QStringLiteral("name"), QStringLiteral("all")},
                    {QStringLiteral("epochs"), trainedEpochs},
                    {QStringLiteral("unfreeze"), frozenIds}};
    const BlockDescriptor *optimizerBlock = BlockRegistry::builtin().find(optimizer->block);
    if (optimizerBlock && optimizerBlock->param(QStringLiteral("lr"))) {
        const double lr = optimizerBlock->value(optimizer->params, QStringLiteral("lr")).toDouble();
        const double tenth = QString::number(lr / 10.0, 'g', 6).toDouble();  // 3e-4, not 3.0000000000000003e-4
        all.insert(QStringLiteral("set"), QJsonObject{{optimizer->id + QStringLiteral(".lr"), tenth}});
    }

    Preset tuned = trained;
    tuned.sourcePath.clear();
    tuned.training.remove(QStringLiteral("epochs"));
    tuned.training.insert(QStringLiteral("stages"), QJsonArray{head, all});
    tuned.training.insert(QStringLiteral("init_from"), QJsonObject{{QStringLiteral("run"), source.runId},
                                                                   {QStringLiteral("checkpoint"), source.checkpoint}});
    const QString from = source.runName.isEmpty() ? QStringLiteral("run #%1").arg(source.runId)
                                                  : QStringLiteral("run #%1 “%2”").arg(source.runId).arg(source.runName);
    QString baseName = trained.name;
    baseName.remove(QRegularExpression(QStringLiteral(" \\(fine-tuned from #\\d+\\)$")));  // a fine-tune of a fine-tune
    tuned.name = QStringLiteral("%1 (fine-tuned from #%2)")
                     .arg(baseName.isEmpty() ? QStringLiteral("Untitled") : baseName)
                     .arg(source.runId);
    tuned.description = QStringLiteral("Fine-tuned from the %1 checkpoint of %2: first the head (%3) alone, then every "
                                       "layer at a tenth of the learning rate.")
                            .arg(source.checkpoint, from, heads.join(QStringLiteral(", ")));
    return tuned;
}

} // namespace ty
