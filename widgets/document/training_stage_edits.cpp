#include "training_stage_edits.h"

#include "block_registry.h"
#include "param_values.h"
#include "training_settings.h"

#include <QSet>

namespace ty::stage_edits {

namespace {

const QString kStages = QStringLiteral("stages");
const QString kEpochs = QStringLiteral("epochs");

QJsonObject withStages(QJsonObject training, const QJsonArray &stages)
{
    if (stages.isEmpty())
        training.remove(kStages);
    else
        training.insert(kStages, stages);
    return training;
}

QStringList inGraphOrder(const PipelineGraph &graph, const QSet<QString> &ids)
{
    QStringList ordered;
    for (const Node &node : graph.nodes)
        if (ids.contains(node.id))
            ordered << node.id;
    return ordered;
}

// The spec a `set` key names: NODE.PARAM or training.KEY; null when it names nothing.
const ParamSpec *specOfKey(const QString &key, const PipelineGraph &graph)
{
    const int dot = key.indexOf(QLatin1Char('.'));
    if (dot <= 0)
        return nullptr;
    const QString owner = key.left(dot), name = key.mid(dot + 1);
    if (owner == QStringLiteral("training"))
        return trainingSpec(name);
    const Node *node = graph.node(owner);
    const BlockDescriptor *block = node ? BlockRegistry::builtin().find(node->block) : nullptr;
    return block ? block->param(name) : nullptr;
}

QString renamedKey(const QString &key, const QString &oldId, const QString &newId)
{
    return key.startsWith(oldId + QLatin1Char('.')) ? newId + key.mid(oldId.size()) : key;
}

QJsonArray renamedIds(const QJsonArray &ids, const QString &oldId, const QString &newId)
{
    QJsonArray out;
    for (const QJsonValue &id : ids)
        out.append(id.toString() == oldId ? QJsonValue(newId) : id);
    return out;
}

} // namespace

QJsonArray stagesOf(const QJsonObject &training) { return training.value(kStages).toArray(); }

QJsonObject addStage(const QJsonObject &training)
{
    QJsonArray stages = stagesOf(training);
    QSet<QString> names;
    for (const QJsonValue &stage : stages)
        names.insert(stage.toObject().value(QStringLiteral("name")).toString());
    int number = int(stages.size()) + 1;
    while (names.contains(QStringLiteral("stage %1").arg(number)))
        ++number;
    QJsonObject out = training;
    int epochs = 1;
    if (stages.isEmpty()) {
        epochs = training.value(kEpochs).toInt(trainingSpec(kEpochs)->defaultValue.toInt());
        out.remove(kEpochs);
    }
    stages.append(QJsonObject{{QStringLiteral("name"), QStringLiteral("stage %1").arg(number)}, {kEpochs, epochs}});
    return withStages(out, stages);
}

QJsonObject removeStage(const QJsonObject &training, int index)
{
    QJsonArray stages = stagesOf(training);
    if (index < 0 || index >= stages.size())
        return training;
    const QJsonObject removed = stages.at(index).toObject();
    stages.removeAt(index);
    QJsonObject out = withStages(training, stages);
    if (stages.isEmpty() && removed.value(kEpochs).isDouble())
        out.insert(kEpochs, removed.value(kEpochs));
    return out;
}

QJsonObject moveStage(const QJsonObject &training, int from, int to)
{
    QJsonArray stages = stagesOf(training);
    if (from < 0 || from >= stages.size() || to < 0 || to >= stages.size() || from == to)
        return training;
    const QJsonValue moved = stages.takeAt(from);
    stages.insert(to, moved);
    return withStages(training, stages);
}

QJsonObject setStageValue(const QJsonObject &training, int index, const QString &key, const QJsonValue &value)
{
    QJsonArray stages = stagesOf(training);
    if (index < 0 || index >= stages.size())
        return training;
    QJsonObject stage = stages.at(index).toObject();
    if (value.isUndefined())
        stage.remove(key);
    else
        stage.insert(key, value);
    stages.replace(index, stage);
    return withStages(training, stages);
}

QJsonObject setStageFrozen(const QJsonObject &training, int index, const PipelineGraph &graph,
                           const QStringList &frozenBefore, const QStringList &frozen)
{
    const QSet<QString> before(frozenBefore.begin(), frozenBefore.end());
    const QSet<QString> now(frozen.begin(), frozen.end());
    const QStringList freeze = inGraphOrder(graph, now - before);
    const QStringList unfreeze = inGraphOrder(graph, before - now);
    QJsonObject out = setStageValue(training, index, QStringLiteral("freeze"),
                                    freeze.isEmpty() ? QJsonValue(QJsonValue::Undefined) : QJsonArray::fromStringList(freeze));
    return setStageValue(out, index, QStringLiteral("unfreeze"),
                         unfreeze.isEmpty() ? QJsonValue(QJsonValue::Undefined) : QJsonArray::fromStringList(unfreeze));
}

QString overridesText(const QJsonObject &set)
{
    QStringList lines;
    for (auto it = set.constBegin(); it != set.constEnd(); ++it)
        lines << QStringLiteral("%1=%2").arg(it.key(), paramValueText(it.value()));
    return lines.join(QLatin1Char('\n'));
}

std::optional<QJsonObject> overridesFromText(const QString &text, const PipelineGraph &graph, QString *problem)
{
    QJsonObject set;
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (int i = 0; i < lines.size(); ++i) {
        const QString line = lines.at(i).trimmed();
        if (line.isEmpty())
            continue;
        const int equals = line.indexOf(QLatin1Char('='));
        if (equals <= 0) {
            if (problem)
                *problem = QStringLiteral("line %1: expected KEY=VALUE, e.g. opt.lr=1e-4").arg(i + 1);
            return std::nullopt;
        }
        const QString key = line.left(equals).trimmed();
        const QString valueText = line.mid(equals + 1).trimmed();
        QJsonValue value(valueText);  // as --set reads text, when the key names no parameter or does not parse
        if (const ParamSpec *spec = specOfKey(key, graph)) {
            QString error;
            const QJsonValue parsed = parseParamText(*spec, valueText, &error);
            if (!parsed.isUndefined())
                value = parsed;
        }
        set.insert(key, value);
    }
    return set;
}

QJsonObject renameNode(const QJsonObject &training, const QString &oldId, const QString &newId)
{
    QJsonObject out = training;
    QJsonArray stages;
    for (const QJsonValue &value : stagesOf(training)) {
        QJsonObject stage = value.toObject();
        for (const QString &list : {QStringLiteral("freeze"), QStringLiteral("unfreeze")})
            if (stage.value(list).isArray())
                stage.insert(list, renamedIds(stage.value(list).toArray(), oldId, newId));
        if (stage.value(QStringLiteral("set")).isObject()) {
            QJsonObject set;
            const QJsonObject old = stage.value(QStringLiteral("set")).toObject();
            for (auto it = old.constBegin(); it != old.constEnd(); ++it)
                set.insert(renamedKey(it.key(), oldId, newId), it.value());
            stage.insert(QStringLiteral("set"), set);
        }
        stages.append(stage);
    }
    if (training.contains(kStages))
        out.insert(kStages, stages);
    QJsonObject init = training.value(QStringLiteral("init_from")).toObject();
    if (init.value(QStringLiteral("nodes")).isArray()) {
        init.insert(QStringLiteral("nodes"), renamedIds(init.value(QStringLiteral("nodes")).toArray(), oldId, newId));
        out.insert(QStringLiteral("init_from"), init);
    }
    // An explicit map's keys are the network's tensor names ("fc1.weight"); the file's names stay.
    if (init.value(QStringLiteral("map")).isObject()) {
        QJsonObject map;
        const QJsonObject old = init.value(QStringLiteral("map")).toObject();
        for (auto it = old.constBegin(); it != old.constEnd(); ++it)
            map.insert(renamedKey(it.key(), oldId, newId), it.value());
        init.insert(QStringLiteral("map"), map);
        out.insert(QStringLiteral("init_from"), init);
    }
    return out;
}

} // namespace ty::stage_edits
