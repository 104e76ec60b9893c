// PipelineDocument's edit API: each function checks the edit, then pushes one undo command.

#include "pipeline_document.h"

#include "auto_layout.h"
#include "block_registry.h"
#include "composite_blocks.h"
#include "composite_grouping.h"
#include "document_commands.h"
#include "graph_validation.h"
#include "param_values.h"
#include "training_settings.h"

#include <QUndoStack>

namespace ty {

// --- Edits

QString PipelineDocument::addNode(const QString &blockType, const QPointF &pos)
{
    const BlockDescriptor *block = this->block(blockType);
    if (!block) {
        for (const LibraryBlock &entry : loadBlockLibrary(m_libraryFolder)) {
            if (entry.name != blockType || BlockRegistry::builtin().find(entry.name))
                continue;
            Preset embedded = m_preset;
            embedLibraryBlock(&embedded, entry);
            m_undoStack->beginMacro(tr("Add %1 from my blocks").arg(entry.name));
            m_undoStack->push(new SetBlocksCommand(this, embedded.blocks, tr("Copy %1 into the preset").arg(entry.name)));
            const QString id = addNode(blockType, pos);
            m_undoStack->endMacro();
            return id;
        }
        return QString();
    }
    PipelineGraph fragment;
    fragment.nodes.append(Node{m_preset.graph.uniqueId(suggestedNodeId(*block)), blockType, {}, pos});
    m_undoStack->push(new AddNodesCommand(this, fragment, tr("Add %1").arg(block->displayName)));
    return fragment.nodes.first().id;
}

QStringList PipelineDocument::addNodes(const PipelineGraph &fragment, const QString &text)
{
    if (fragment.nodes.isEmpty())
        return {};
    m_undoStack->push(new AddNodesCommand(this, fragment, text));
    QStringList ids;
    for (const Node &node : fragment.nodes)
        ids << node.id;
    return ids;
}

bool PipelineDocument::removeItems(const QStringList &nodeIds, const QList<Edge> &edges, const QString &text)
{
    auto *command = new RemoveItemsCommand(this, nodeIds, edges, text);
    if (command->isEmpty()) {
        delete command;
        return false;
    }
    m_undoStack->push(command);
    return true;
}

QString PipelineDocument::groupIntoBlock(const QStringList &nodeIds)
{
    const Result<Grouping> group = groupIntoComposite(m_preset, nodeIds);
    if (!group)
        return group.error().message;
    QJsonObject blocks = m_preset.blocks;
    blocks.insert(group.value().blockName, group.value().definition);
    PipelineGraph fragment;
    fragment.nodes.append(group.value().node);
    fragment.edges = group.value().edges;
    const QString what = nodeIds.size() == 1 ? tr("Group 1 node into %1") : tr("Group %1 nodes into %2").arg(nodeIds.size());
    m_undoStack->beginMacro(what.arg(group.value().blockName));
    m_undoStack->push(new RemoveItemsCommand(this, nodeIds, {}, QString()));
    m_undoStack->push(new SetBlocksCommand(this, blocks, QString()));
    m_undoStack->push(new AddNodesCommand(this, fragment, QString()));
    m_undoStack->endMacro();
    return QString();
}

QString PipelineDocument::ungroupBlock(const QString &nodeId)
{
    const Result<Ungrouping> ungroup = ungroupComposite(m_preset, nodeId);
    if (!ungroup)
        return ungroup.error().message;
    PipelineGraph fragment;
    fragment.nodes = ungroup.value().nodes;
    fragment.edges = ungroup.value().edges;
    m_undoStack->beginMacro(tr("Ungroup %1").arg(nodeId));
    m_undoStack->push(new RemoveItemsCommand(this, {nodeId}, {}, QString()));
    m_undoStack->push(new AddNodesCommand(this, fragment, QString()));
    m_undoStack->endMacro();
    return QString();
}

QString PipelineDocument::exposeInnerParam(const QString &block, const QString &path)
{
    QString name;
    const Result<QJsonObject> definition = ty::exposeInnerParam(m_preset, block, path, &name);
    if (!definition)
        return definition.error().message;
    QJsonObject blocks = m_preset.blocks;
    blocks.insert(block, definition.value());
    m_undoStack->push(new SetBlocksCommand(this, blocks, tr("Expose %1 of %2 as %3").arg(path, block, name)));
    return QString();
}

bool PipelineDocument::moveNodes(const QHash<QString, QPointF> &positions, MoveKind kind)
{
    QMap<QString, QPointF> from, to;
    for (auto it = positions.constBegin(); it != positions.constEnd(); ++it) {
        const Node *node = m_preset.graph.node(it.key());
        if (node && node->pos != it.value()) {
            from.insert(it.key(), node->pos);
            to.insert(it.key(), it.value());
        }
    }
    if (to.isEmpty())
        return false;
    m_undoStack->push(new MoveNodesCommand(this, from, to, kind));
    return true;
}

QString PipelineDocument::connectPorts(const Endpoint &from, const Endpoint &to)
{
    const QString problem = connectionProblem(m_preset.graph, from, to);
    if (problem.isEmpty())
        m_undoStack->push(new ConnectCommand(this, Edge{from, to}));
    return problem;
}

QString PipelineDocument::renameProblem(const QString &oldId, const QString &newId) const
{
    if (!m_preset.graph.node(oldId))
        return tr("there is no node \"%1\"").arg(oldId);
    if (newId == oldId)
        return QString();
    if (!isValidNodeId(newId))
        return tr("\"%1\" is not an id: use letters, digits and underscores, starting with a letter").arg(newId);
    if (newId == QStringLiteral("training"))
        return tr("\"training\" is reserved for the training settings");
    if (m_preset.graph.node(newId))
        return tr("another node is already called \"%1\"").arg(newId);
    return QString();
}

QString PipelineDocument::renameNode(const QString &oldId, const QString &newId)
{
    const QString problem = renameProblem(oldId, newId);
    if (problem.isEmpty() && newId != oldId)
        m_undoStack->push(new RenameNodeCommand(this, oldId, newId));
    return problem;
}

QString PipelineDocument::setParam(const QString &nodeId, const QString &param, const QJsonValue &value, int session)
{
    const Node *node = m_preset.graph.node(nodeId);
    const BlockDescriptor *block = node ? this->block(node->block) : nullptr;
    const ParamSpec *spec = block ? block->param(param) : nullptr;
    if (!spec)
        return tr("%1 has no parameter \"%2\"").arg(nodeId, param);
    const QString problem = checkParamValue(*spec, value);
    if (problem.isEmpty() && node->params.value(param) != value)
        m_undoStack->push(new SetParamCommand(this, nodeId, param, value, session));
    return problem;
}

bool PipelineDocument::resetParam(const QString &nodeId, const QString &param)
{
    const Node *node = m_preset.graph.node(nodeId);
    if (!node || !node->params.contains(param))
        return false;
    m_undoStack->push(new SetParamCommand(this, nodeId, param, QJsonValue(QJsonValue::Undefined), 0));
    return true;
}

QString PipelineDocument::setTrainingValue(const QString &key, const QJsonValue &value, int session)
{
    const ParamSpec *spec = trainingSpec(key);
    if (!spec)
        return tr("there is no training setting \"%1\"").arg(key);
    const QString problem = checkParamValue(*spec, value);
    if (problem.isEmpty() && m_preset.training.value(key) != value)
        m_undoStack->push(new SetTrainingCommand(this, key, value, session));
    return problem;
}

bool PipelineDocument::resetTrainingValue(const QString &key)
{
    if (!m_preset.training.contains(key))
        return false;
    m_undoStack->push(new SetTrainingCommand(this, key, QJsonValue(QJsonValue::Undefined), 0));
    return true;
}

bool PipelineDocument::setPresetInfo(const QString &name, const QString &description, int session)
{
    return setPresetInfo(PresetInfo{name, description, m_preset.hypothesis}, session);
}

bool PipelineDocument::setPresetInfo(const PresetInfo &info, int session)
{
    if (info == PresetInfo{m_preset.name, m_preset.description, m_preset.hypothesis})
        return false;
    m_undoStack->push(new SetPresetInfoCommand(this, info, session));
    return true;
}

bool PipelineDocument::setTrainingSection(const QJsonObject &training, const QString &text, const QString &mergeKey,
                                          int session)
{
    if (training == m_preset.training)
        return false;
    m_undoStack->push(new SetTrainingCommand(this, training, text, mergeKey, session));
    return true;
}

bool PipelineDocument::autoArrange(const QHash<QString, QSizeF> &nodeSizes, const LayoutOptions &options)
{
    return moveNodes(autoLayout(m_preset.graph, nodeSizes, options), MoveKind::Arrange);
}

// --- Naming and sessions

int nextEditSession()
{
    static int last = 0;
    return ++last;
}

QString suggestedNodeId(const BlockDescriptor &block)
{
    switch (block.category) {
    case BlockCategory::Dataset: return QStringLiteral("data");
    case BlockCategory::Loss: return QStringLiteral("loss");
    case BlockCategory::Optimizer: return QStringLiteral("opt");
    case BlockCategory::Schedule: return QStringLiteral("schedule");
    default: break;
    }
    if (!block.nodeIdPrefix.isEmpty())
        return block.nodeIdPrefix;
    const QString last = block.typeId.section(QLatin1Char('.'), -1);
    return isValidNodeId(last) ? last : QStringLiteral("node");
}

} // namespace ty
