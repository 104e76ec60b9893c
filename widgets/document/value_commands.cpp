// Undo commands that change values: node positions, parameters, training settings, name, description and hypothesis.

#include "document_commands.h"

namespace ty {

namespace {
// Command ids for QUndoCommand::id(): commands of the same id may merge.
enum CommandId { kNudgeId = 1001, kSetParamId, kSetTrainingId, kSetPresetInfoId };

QJsonObject withValue(QJsonObject object, const QString &key, const QJsonValue &value)
{
    if (value.isUndefined())
        object.remove(key);
    else
        object.insert(key, value);
    return object;
}
} // namespace

// --- MoveNodesCommand

MoveNodesCommand::MoveNodesCommand(PipelineDocument *document, const QMap<QString, QPointF> &from,
                                   const QMap<QString, QPointF> &to, MoveKind kind)
    : DocumentCommand(document, QString()), m_from(from), m_to(to), m_kind(kind)
{
    if (kind == MoveKind::Arrange)
        setText(QObject::tr("Auto-arrange"));
    else
        setText(to.size() == 1 ? QObject::tr("Move %1").arg(to.firstKey())
                               : QObject::tr("Move %n nodes", nullptr, int(to.size())));
}

int MoveNodesCommand::id() const
{
    return m_kind == MoveKind::Nudge ? kNudgeId : -1;
}

bool MoveNodesCommand::mergeWith(const QUndoCommand *other)
{
    const auto *move = static_cast<const MoveNodesCommand *>(other);
    if (move->m_kind != MoveKind::Nudge || move->m_to.keys() != m_to.keys())
        return false;
    m_to = move->m_to;
    setObsolete(m_to == m_from);
    return true;
}

void MoveNodesCommand::apply(const QMap<QString, QPointF> &positions)
{
    for (auto it = positions.constBegin(); it != positions.constEnd(); ++it)
        setNodePos(it.key(), it.value());
    select(m_selectionBefore);
}

void MoveNodesCommand::redo()
{
    apply(m_to);
}

void MoveNodesCommand::undo()
{
    apply(m_from);
}

// --- SetParamCommand

SetParamCommand::SetParamCommand(PipelineDocument *document, const QString &nodeId, const QString &param,
                                 const QJsonValue &value, int session)
    : DocumentCommand(document, value.isUndefined() ? QObject::tr("Reset %1.%2").arg(nodeId, param)
                                                    : QObject::tr("Set %1.%2").arg(nodeId, param)),
      m_nodeId(nodeId), m_param(param), m_session(session)
{
    if (const Node *node = graph().node(nodeId))
        m_oldParams = node->params;
    m_newParams = withValue(m_oldParams, param, value);
}

int SetParamCommand::id() const
{
    return kSetParamId;
}

bool SetParamCommand::mergeWith(const QUndoCommand *other)
{
    const auto *set = static_cast<const SetParamCommand *>(other);
    if (m_session == 0 || set->m_session != m_session || set->m_nodeId != m_nodeId || set->m_param != m_param)
        return false;
    m_newParams = set->m_newParams;
    setObsolete(m_newParams == m_oldParams);
    return true;
}

void SetParamCommand::redo()
{
    setNodeParams(m_nodeId, m_newParams);
    select({m_nodeId});
}

void SetParamCommand::undo()
{
    setNodeParams(m_nodeId, m_oldParams);
    select(m_selectionBefore);
}

// --- SetTrainingCommand

SetBlocksCommand::SetBlocksCommand(PipelineDocument *document, const QJsonObject &blocks, const QString &text)
    : DocumentCommand(document, text), m_old(document->preset().blocks), m_new(blocks)
{
}

SetTrainingCommand::SetTrainingCommand(PipelineDocument *document, const QString &key, const QJsonValue &value,
                                       int session)
    : DocumentCommand(document, value.isUndefined() ? QObject::tr("Reset training.%1").arg(key)
                                                    : QObject::tr("Set training.%1").arg(key)),
      m_key(key), m_old(document->preset().training), m_new(withValue(m_old, key, value)), m_session(session)
{
}

SetTrainingCommand::SetTrainingCommand(PipelineDocument *document, const QJsonObject &training, const QString &text,
                                       const QString &mergeKey, int session)
    : DocumentCommand(document, text), m_key(mergeKey), m_old(document->preset().training), m_new(training),
      m_session(session)
{
}

int SetTrainingCommand::id() const
{
    return kSetTrainingId;
}

bool SetTrainingCommand::mergeWith(const QUndoCommand *other)
{
    const auto *set = static_cast<const SetTrainingCommand *>(other);
    if (m_session == 0 || set->m_session != m_session || set->m_key != m_key)
        return false;
    m_new = set->m_new;
    setObsolete(m_new == m_old);
    return true;
}

void SetTrainingCommand::redo()
{
    setTraining(m_new);
    select({});
}

void SetTrainingCommand::undo()
{
    setTraining(m_old);
    select(m_selectionBefore);
}

// --- SetPresetInfoCommand

SetPresetInfoCommand::SetPresetInfoCommand(PipelineDocument *document, const PresetInfo &info, int session)
    : DocumentCommand(document, QObject::tr("Edit preset name, description and hypothesis")),
      m_old{document->preset().name, document->preset().description, document->preset().hypothesis}, m_new(info),
      m_session(session)
{
}

int SetPresetInfoCommand::id() const
{
    return kSetPresetInfoId;
}

bool SetPresetInfoCommand::mergeWith(const QUndoCommand *other)
{
    const auto *set = static_cast<const SetPresetInfoCommand *>(other);
    if (m_session == 0 || set->m_session != m_session)
        return false;
    m_new = set->m_new;
    setObsolete(m_new == m_old);
    return true;
}

void SetPresetInfoCommand::redo()
{
    setPresetInfoFields(m_new);
    select({});
}

void SetPresetInfoCommand::undo()
{
    setPresetInfoFields(m_old);
    select(m_selectionBefore);
}

} // namespace ty
