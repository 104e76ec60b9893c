#include "training_stages.h"

#include "block_registry.h"
#include "param_values.h"
#include "preset_overrides.h"
#include "preset_sections.h"
#include "regular_file.h"

#include <QDir>
#include <QJsonArray>
#include <QSet>

#include <cmath>

namespace ty {

namespace {

const QString kStages = QStringLiteral("stages");
const QString kInitFrom = QStringLiteral("init_from");

// Collects issues when asked to; checks stay the same either way.
class IssueSink {
public:
    explicit IssueSink(Issues *issues) : m_issues(issues) {}
    void error(const QString &field, const QString &message, const QString &node = {})
    {
        add({Issue{Severity::Error, message, node, {}, field}});
    }
    void add(const Issues &issues)
    {
        for (const Issue &issue : issues) {
            m_failed = m_failed || issue.severity == Severity::Error;
            if (m_issues)
                m_issues->append(issue);
        }
    }
    bool failed() const { return m_failed; }

private:
    Issues *m_issues;
    bool m_failed = false;
};

Issue errorAt(const QString &field, const QString &message)
{
    return Issue{Severity::Error, message, {}, {}, field};
}

bool isWholeNumber(const QJsonValue &v, double min, double max)
{
    return v.isDouble() && std::floor(v.toDouble()) == v.toDouble() && v.toDouble() >= min && v.toDouble() <= max;
}

QString nodeList(const PipelineGraph &graph)
{
    QStringList ids;
    for (const Node &n : graph.nodes)
        ids << n.id;
    return ids.join(QStringLiteral(", "));
}

// Node ids from a JSON array of strings; every id must name a node whose category passes `allowed`.
QStringList nodeIds(const QJsonValue &value, const QString &field, const PipelineGraph &graph, IssueSink &sink,
                    bool networkOnly)
{
    QStringList out;
    if (!value.isArray()) {
        sink.error(field, QStringLiteral("expected a list of node ids, e.g. [\"conv1\", \"conv2\"]"));
        return out;
    }
    const BlockRegistry &registry = BlockRegistry::builtin();
    for (const QJsonValue &item : value.toArray()) {
        const QString id = item.toString();
        const Node *node = item.isString() ? graph.node(id) : nullptr;
        if (!node) {
            sink.error(field, QStringLiteral("no node \"%1\" in the preset (nodes: %2)")
                                  .arg(item.isString() ? id.left(60) : QStringLiteral("(not text)"), nodeList(graph)));
            continue;
        }
        const BlockDescriptor *block = registry.find(node->block);
        if (networkOnly && block && block->category != BlockCategory::Layer && block->category != BlockCategory::Transform) {
            sink.error(field, QStringLiteral("\"%1\" is a %2 node; only network nodes (layers) can be frozen")
                                  .arg(id, categoryName(block->category)), id);
            continue;
        }
        if (!out.contains(id))
            out << id;
    }
    return out;
}

// Applies one stage's `set` entries to `preset`; entries that cannot change between stages are errors.
QStringList applyStageOverrides(const QJsonValue &set, const QString &field, Preset *preset, IssueSink &sink)
{
    QStringList applied;
    if (set.isUndefined())
        return applied;
    if (!set.isObject()) {
        sink.error(field, QStringLiteral("expected an object of overrides, e.g. {\"opt.lr\": 0.0001}"));
        return applied;
    }
    const BlockRegistry &registry = BlockRegistry::builtin();
    const QJsonObject object = set.toObject();
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        const QString key = it.key();
        const QString keyField = field + QLatin1Char('.') + key;
        const QString owner = key.section(QLatin1Char('.'), 0, 0);
        const QString rest = key.section(QLatin1Char('.'), 1);
        if (owner == QStringLiteral("training") && isRunWideTrainingKey(rest)) {
            sink.error(keyField, QStringLiteral("training.%1 holds for the whole run; a stage cannot change it").arg(rest));
            continue;
        }
        if (rest == QStringLiteral("block")) {
            sink.error(keyField, QStringLiteral("a stage cannot swap a node's block (%1): the stages of a run share one network and "
                                                "one optimizer type. To go on with another, start a run from this one's "
                                                "checkpoint (training.init_from), or swap it for the whole run (--set %1=TYPE)")
                                     .arg(key), owner);
            continue;
        }
        if (const Node *node = preset->graph.node(owner)) {
            const BlockDescriptor *block = registry.find(node->block);
            if (block && block->category == BlockCategory::Dataset) {
                sink.error(keyField, QStringLiteral("the data set is loaded once per run; a stage cannot change %1").arg(key), owner);
                continue;
            }
        }
        const Status status = applyParamValue(preset, key, it.value(), keyField);
        if (!status) {
            sink.error(keyField, status.error().message, status.error().node);
            continue;
        }
        applied << key + QLatin1Char('=') + paramValueText(it.value());
    }
    return applied;
}

// `init_from.map` as written: a convention's name or an object of tensor names; problems go to `issues`.
WeightMap parseWeightMap(const QJsonValue &value, const QString &field, Issues *issues)
{
    WeightMap map;
    if (value.isUndefined())
        return map;
    const QString expected = QStringLiteral("expected a convention such as \"sequential\" or \"auto\", or an object of "
                                            "tensor names such as {\"fc1.weight\": \"0.weight\"} (this network's, then the file's)");
    if (value.isString() && !value.toString().isEmpty()) {
        map.convention = value.toString();
        return map;
    }
    if (!value.isObject() || value.toObject().isEmpty()) {
        issues->append(errorAt(field, expected));
        return map;
    }
    const QJsonObject o = value.toObject();
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        if (it.key().isEmpty() || !it.value().isString() || it.value().toString().isEmpty()) {
            issues->append(errorAt(field + QLatin1Char('.') + it.key().left(60),
                                   QStringLiteral("expected the name of a tensor of the file (a string), e.g. \"0.weight\"")));
            continue;
        }
        map.pairs.append({it.key(), it.value().toString()});
    }
    return map;
}

} // namespace

QString WeightMap::describe() const
{
    return isExplicit() ? QStringLiteral("explicit") : convention.isEmpty() ? QStringLiteral("none") : convention;
}

QJsonValue WeightMap::toJson() const
{
    if (!convention.isEmpty())
        return convention;
    if (pairs.isEmpty())
        return QJsonValue(QJsonValue::Undefined);
    QJsonObject o;
    for (const auto &[network, file] : pairs)
        o.insert(network, file);
    return o;
}

bool isRunWideTrainingKey(const QString &key)
{
    static const QSet<QString> runWide{
        QStringLiteral("epochs"),          QStringLiteral("seed"),      QStringLiteral("device"),
        QStringLiteral("deterministic"),   QStringLiteral("threads"),   QStringLiteral("checkpoint_keep"),
        QStringLiteral("best_metric"),     QStringLiteral("best_mode"), kStages, kInitFrom,
        QStringLiteral("mixed_precision"), QStringLiteral("streaming"), QStringLiteral("tensorboard_dir"),
        QStringLiteral("dist_backend"),    QStringLiteral("dist_timeout"),  // the process group is made once
    };
    return runWide.contains(key);
}

namespace {

// A preset without stages (or with a stages list too broken to plan) trains as one stage of training.epochs.
StagePlan implicitStage(const Preset &preset, const TrainingSettings &settings)
{
    StagePlan only;
    only.epochs = settings.epochs;
    only.preset = preset;
    only.resetOptimizer = true;
    only.implicit = true;
    return only;
}

} // namespace

ParsedStages parseStages(const QJsonObject &training)
{
    ParsedStages out;
    const QJsonValue stagesValue = training.value(kStages);
    out.given = !stagesValue.isUndefined();
    if (!out.given)
        return out;
    const QString field = QStringLiteral("training.stages");
    const QJsonArray stages = stagesValue.toArray();
    if (!stagesValue.isArray() || stages.isEmpty() || stages.size() > 1000) {
        out.issues.append(errorAt(field, QStringLiteral("expected a list of 1 to 1000 stages, each like {\"name\": \"head\", \"epochs\": 2, \"freeze\": [\"conv1\"]}")));
        return out;
    }
    out.usable = true;
    if (training.contains(QStringLiteral("epochs")))
        out.issues.append(Issue{Severity::Warning, QStringLiteral("not used: the stages give the epochs"), {}, {},
                                QStringLiteral("training.epochs")});

    static const QSet<QString> keys{QStringLiteral("name"), QStringLiteral("epochs"), QStringLiteral("set"),
                                    QStringLiteral("freeze"), QStringLiteral("unfreeze"), QStringLiteral("reset_optimizer")};
    QSet<QString> names;
    for (int i = 0; i < stages.size(); ++i) {
        const QString at = QStringLiteral("%1[%2]").arg(field).arg(i);
        TrainingStage stage;
        if (!stages.at(i).isObject()) {
            stage.isObject = false;
            stage.issues.append(errorAt(at, QStringLiteral("expected an object such as {\"name\": \"head\", \"epochs\": 2}")));
            out.stages << stage;
            continue;
        }
        const QJsonObject s = stages.at(i).toObject();
        for (auto it = s.constBegin(); it != s.constEnd(); ++it)
            if (!keys.contains(it.key()))
                stage.issues.append(errorAt(at + QLatin1Char('.') + it.key().left(60),
                                          QStringLiteral("unknown stage key (known: name, epochs, set, freeze, unfreeze, reset_optimizer)")));
        stage.name = s.value(QStringLiteral("name")).toString(QStringLiteral("stage %1").arg(i + 1));
        if (s.contains(QStringLiteral("name")) && (!s.value(QStringLiteral("name")).isString() || stage.name.trimmed().isEmpty()
                                                   || stage.name.size() > 60))
            stage.issues.append(errorAt(at + QStringLiteral(".name"), QStringLiteral("expected a name of 1 to 60 characters")));
        else if (names.contains(stage.name))
            stage.issues.append(errorAt(at + QStringLiteral(".name"), QStringLiteral("another stage is already called \"%1\"").arg(stage.name)));
        names.insert(stage.name);
        const QJsonValue epochs = s.value(QStringLiteral("epochs"));
        if (!isWholeNumber(epochs, 1, 1e6))
            stage.issues.append(errorAt(at + QStringLiteral(".epochs"), QStringLiteral("expected a whole number of epochs from 1 to 1000000")));
        stage.epochs = std::max(1, epochs.toInt());
        stage.set = s.value(QStringLiteral("set"));
        stage.freeze = s.value(QStringLiteral("freeze"));
        stage.unfreeze = s.value(QStringLiteral("unfreeze"));
        const QJsonValue reset = s.value(QStringLiteral("reset_optimizer"));
        if (reset.isBool())
            stage.resetOptimizer = reset.toBool();
        else if (!reset.isUndefined())
            stage.resetIssues.append(errorAt(at + QStringLiteral(".reset_optimizer"), QStringLiteral("expected true or false")));
        out.stages << stage;
    }
    return out;
}

QList<StagePlan> planStages(const Preset &preset, Issues *issues)
{
    IssueSink sink(issues);
    const std::shared_ptr<const TrainingSection> section = trainingSection(preset);
    const ParsedStages &parsed = section->stages;
    if (!parsed.given)
        return {implicitStage(preset, section->settings)};
    sink.add(parsed.issues);
    if (!parsed.usable)
        return {implicitStage(preset, section->settings)};

    const QString field = QStringLiteral("training.stages");
    QList<StagePlan> out;
    Preset current = preset;
    QStringList frozen;
    for (int i = 0; i < parsed.stages.size(); ++i) {
        const TrainingStage &stage = parsed.stages.at(i);
        sink.add(stage.issues);
        if (!stage.isObject)
            continue;
        const QString at = QStringLiteral("%1[%2]").arg(field).arg(i);
        StagePlan plan;
        plan.index = i;
        plan.name = stage.name;
        plan.epochs = stage.epochs;
        const QJsonObject trainingBefore = current.training;
        plan.overrides = applyStageOverrides(stage.set, at + QStringLiteral(".set"), &current, sink);
        // A stage that changes training keys has a section of its own, parsed once while the section stays the same.
        if (current.training != trainingBefore)
            current.sections.setTraining(section->stageSection(i, current.training));
        const QStringList previous = frozen;
        if (!stage.freeze.isUndefined())
            for (const QString &id : nodeIds(stage.freeze, at + QStringLiteral(".freeze"), preset.graph, sink, true))
                if (!frozen.contains(id))
                    frozen << id;
        if (!stage.unfreeze.isUndefined())
            for (const QString &id : nodeIds(stage.unfreeze, at + QStringLiteral(".unfreeze"), preset.graph, sink, true))
                frozen.removeAll(id);
        sink.add(stage.resetIssues);
        QSet<QString> before(previous.begin(), previous.end()), after(frozen.begin(), frozen.end());
        plan.resetOptimizer = i == 0 || (stage.resetOptimizer ? *stage.resetOptimizer : before != after);
        // Graph order, so reports and the engine see the same list whatever order the stages named them in.
        for (const Node &node : preset.graph.nodes)
            if (frozen.contains(node.id))
                plan.frozen << node.id;
        plan.preset = current;
        out << plan;
    }
    return out;
}

ParsedInitFrom parseInitFrom(const QJsonObject &training)
{
    ParsedInitFrom out;
    const QJsonValue value = training.value(kInitFrom);
    out.given = !value.isUndefined();
    if (!out.given)
        return out;
    const QString field = QStringLiteral("training.init_from");
    if (!value.isObject()) {
        out.issues.append(errorAt(field, QStringLiteral("expected {\"run\": ID, \"checkpoint\": \"best\"} or {\"file\": \"weights.safetensors\"}")));
        return out;
    }
    const QJsonObject o = value.toObject();
    static const QSet<QString> keys{QStringLiteral("run"), QStringLiteral("checkpoint"), QStringLiteral("file"),
                                    QStringLiteral("nodes"), QStringLiteral("strict"), QStringLiteral("map")};
    for (auto it = o.constBegin(); it != o.constEnd(); ++it)
        if (!keys.contains(it.key()))
            out.issues.append(errorAt(field + QLatin1Char('.') + it.key().left(60), QStringLiteral("unknown key (known: run, checkpoint, file, nodes, strict, map)")));
    const bool hasRun = o.contains(QStringLiteral("run"));
    out.hasFile = o.contains(QStringLiteral("file"));
    if (hasRun && out.hasFile)
        out.issues.append(errorAt(field, QStringLiteral("give either \"run\" (a run id of the database) or \"file\" (a weights file), not both")));
    if (!hasRun && !out.hasFile) {
        // A preset may say which nodes carry over and leave the source to the command line or the app.
        out.issues.append(Issue{Severity::Info,
                                QStringLiteral("no \"run\" or \"file\": the run starts from its own initial weights unless "
                                               "--init-from RUN (or the app's \"Fine-tune from this run\") gives it one"),
                                {}, {}, field});
        return out;
    }
    out.usable = true;
    InitFrom &init = out.init;
    if (hasRun) {
        if (isWholeNumber(o.value(QStringLiteral("run")), 1, 9007199254740991.0))
            init.run = qint64(o.value(QStringLiteral("run")).toDouble());
        else
            out.issues.append(errorAt(field + QStringLiteral(".run"), QStringLiteral("expected a run id (a whole number from 1)")));
    }
    const QJsonValue checkpoint = o.value(QStringLiteral("checkpoint"));
    if (!checkpoint.isUndefined()) {
        if (out.hasFile)
            out.issues.append(errorAt(field + QStringLiteral(".checkpoint"), QStringLiteral("only a run has checkpoints to choose from")));
        if (checkpoint.isString() && (checkpoint.toString() == QStringLiteral("last") || checkpoint.toString() == QStringLiteral("best")))
            init.checkpoint = checkpoint.toString();
        else if (isWholeNumber(checkpoint, 0, 9007199254740991.0))
            init.checkpoint = QString::number(qint64(checkpoint.toDouble()));
        else
            out.issues.append(errorAt(field + QStringLiteral(".checkpoint"), QStringLiteral("expected \"last\", \"best\" or a step number")));
    }
    init.file = o.value(QStringLiteral("file")).toString();
    out.nodes = o.value(QStringLiteral("nodes"));
    const QJsonValue strict = o.value(QStringLiteral("strict"));
    if (!strict.isUndefined() && !strict.isBool())
        out.strictIssues.append(errorAt(field + QStringLiteral(".strict"), QStringLiteral("expected true or false")));
    init.strict = strict.toBool(true);
    init.map = parseWeightMap(o.value(QStringLiteral("map")), field + QStringLiteral(".map"), &out.strictIssues);
    return out;
}

std::optional<InitFrom> initFrom(const Preset &preset, Issues *issues)
{
    IssueSink sink(issues);
    const ParsedInitFrom &parsed = trainingSection(preset)->initFrom;
    sink.add(parsed.issues);
    if (!parsed.usable)
        return std::nullopt;
    const QString field = QStringLiteral("training.init_from");
    InitFrom init = parsed.init;
    if (parsed.hasFile) {
        if (init.file.isEmpty()) {
            sink.error(field + QStringLiteral(".file"), QStringLiteral("expected the path of a weights file"));
        } else {
            init.file = QDir::cleanPath(QDir(preset.baseDir()).absoluteFilePath(init.file));
            if (const Status regular = requireRegularFile(init.file); !regular)
                sink.error(field + QStringLiteral(".file"), QStringLiteral("%1: %2").arg(init.file, regular.error().message));
        }
    }
    if (!parsed.nodes.isUndefined())
        init.nodes = nodeIds(parsed.nodes, field + QStringLiteral(".nodes"), preset.graph, sink, true);
    sink.add(parsed.strictIssues);
    if (sink.failed())
        return std::nullopt;
    return init;
}

int totalEpochs(const QList<StagePlan> &stages)
{
    int total = 0;
    for (const StagePlan &stage : stages)
        total += stage.epochs;
    return total;
}

} // namespace ty
