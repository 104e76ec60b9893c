// core/presets/preset_sections: a preset's `training` and `blocks` are parsed once per version of each. Loading
// parses both; copies, the stage planner, expansion, --set and validation read that parse; a changed section is
// parsed again once, at its first use; a stage that overrides training keys has its section parsed once while the
// base section stays the same, however often the stages are planned again.

#include "test_suite.h"
#include "core_test_support.h"

#include "composite_blocks.h"
#include "composite_expansion.h"
#include "preset_format.h"
#include "preset_inspection.h"
#include "preset_overrides.h"
#include "preset_sections.h"
#include "training_stages.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace ty;

namespace {

// Parses counted from here on.
class ParseCount {
public:
    ParseCount() : m_start(sectionParses()) {}
    int training() const { return sectionParses().training - m_start.training; }
    int blocks() const { return sectionParses().blocks - m_start.blocks; }

private:
    SectionParses m_start;
};

// A composite "dense" used twice, two stages (the second changes the batch size), init_from naming nodes.
const char *kPreset = R"({"format": "trainyard-preset", "version": 1, "name": "sections",
  "blocks": {"dense": {"params": {"width": {"type": "int", "default": 16, "min": 1, "max": 4096, "bind": ["fc.out_features"]}},
                       "inputs": {"in": "fc.in"}, "outputs": {"out": "act.out"},
                       "nodes": [{"id": "fc", "block": "layer.linear"}, {"id": "act", "block": "layer.tanh"}],
                       "edges": [{"from": "fc.out", "to": "act.in"}]}},
  "nodes": [{"id": "data", "block": "dataset.synthetic", "params": {"samples": 200, "test_samples": 50}},
            {"id": "body", "block": "dense", "repeat": 2},
            {"id": "fc2", "block": "layer.linear", "params": {"out_features": 4}},
            {"id": "loss", "block": "loss.cross_entropy"},
            {"id": "opt", "block": "optimizer.adam"}],
  "edges": [{"from": "data.features", "to": "body.in"}, {"from": "body.out", "to": "fc2.in"},
            {"from": "fc2.out", "to": "loss.input"}, {"from": "data.target", "to": "loss.target"},
            {"from": "loss.loss", "to": "opt.loss"}],
  "training": {"batch_size": 32, "device": "cpu", "init_from": {"nodes": ["body"]},
               "stages": [{"name": "head", "epochs": 1, "freeze": ["body"], "set": {"opt.lr": 0.02}},
                          {"name": "all", "epochs": 1, "unfreeze": ["body"], "set": {"training.batch_size": 64}}]}})";

Preset loaded()
{
    const Result<Preset> preset = presetFromJson(QJsonDocument::fromJson(kPreset).object(), QStringLiteral("sections.trainyard.json"));
    if (!preset)
        qFatal("%s", qPrintable(preset.error().toString()));
    return preset.value();
}

} // namespace

class TestPresetSections : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void loadingParsesEachSectionOnce()
    {
        const ParseCount count;
        const Preset preset = loaded();
        QCOMPARE(count.training(), 1);
        QCOMPARE(count.blocks(), 1);
        QCOMPARE(trainingSettings(preset).batchSize, 32);
        QVERIFY(compositeDefinition(preset, QStringLiteral("dense")).ok());
        QVERIFY(presetBlockRegistry(preset).find(QStringLiteral("dense")));
        QCOMPARE(count.training(), 1);
        QCOMPARE(count.blocks(), 1);
    }

    void copiesPlanningAndValidationReadTheParse()
    {
        const Preset preset = loaded();
        planStages(preset);  // the stage that changes the batch size: its section, once
        const ParseCount count;
        const Preset copy = preset;
        QCOMPARE(trainingSettings(copy).seed, 0);
        QCOMPARE(expandComposites(copy).preset.graph.nodes.size(), 8);
        QCOMPARE(flattenParams(copy).value(QStringLiteral("body.width")), QStringLiteral("16"));
        const QList<StagePlan> stages = planStages(copy);
        QCOMPARE(trainingSettings(stages.at(1).preset).batchSize, 64);
        QVERIFY(initFrom(copy) == std::nullopt);  // nodes only: the source comes from the command line
        inspectPresetShapes(copy);
        QCOMPARE(count.training(), 0);
        QCOMPARE(count.blocks(), 0);
    }

    void anEditOfTheGraphParsesNothing()
    {
        Preset preset = loaded();
        planStages(preset);
        const ParseCount count;
        QVERIFY(applyOverrides(&preset, {QStringLiteral("fc2.out_features=5")}).ok());
        inspectPresetShapes(preset);
        QCOMPARE(planStages(preset).at(1).preset.graph.node(QStringLiteral("fc2"))->params.value(QStringLiteral("out_features")).toInt(), 5);
        QCOMPARE(count.training(), 0);
        QCOMPARE(count.blocks(), 0);
    }

    void aChangedSectionIsParsedOnceAtItsFirstUse()
    {
        Preset preset = loaded();
        const ParseCount count;
        preset.training.insert(QStringLiteral("seed"), 7);
        QCOMPARE(count.training(), 0);  // not yet used
        QCOMPARE(trainingSettings(preset).seed, 7);
        QCOMPARE(trainingSettings(preset).seed, 7);
        const Preset copy = preset;
        QCOMPARE(trainingSettings(copy).seed, 7);
        QCOMPARE(count.training(), 1);
        // --set parses what it changed at once, so the copies made from it share the parse.
        QVERIFY(applyOverrides(&preset, {QStringLiteral("training.seed=8")}).ok());
        QCOMPARE(count.training(), 2);
        const Preset overridden = preset;
        QCOMPARE(trainingSettings(overridden).seed, 8);
        QCOMPARE(count.training(), 2);
        // The blocks: one parse for the new version, whatever reads it.
        preset.blocks.insert(QStringLiteral("wide"), preset.blocks.value(QStringLiteral("dense")));
        QVERIFY(presetBlockRegistry(preset).find(QStringLiteral("wide")));
        QVERIFY(compositeDefinition(preset, QStringLiteral("wide")).ok());
        expandComposites(preset);
        QCOMPARE(count.blocks(), 1);
        QCOMPARE(count.training(), 2);
    }

    void anEqualSectionIsNotParsedAgain()
    {
        Preset preset = loaded();
        const ParseCount count;
        // The same JSON, built again: equal, so the parse carried is still the one.
        preset.training = QJsonDocument::fromJson(QJsonDocument(preset.training).toJson()).object();
        QCOMPARE(trainingSettings(preset).batchSize, 32);
        QCOMPARE(count.training(), 0);
    }

    void aStagesSectionIsParsedOncePerVersionOfTheBase()
    {
        const Preset preset = loaded();
        const ParseCount count;
        for (int i = 0; i < 3; ++i)
            QCOMPARE(trainingSettings(planStages(preset).at(1).preset).batchSize, 64);
        QCOMPARE(count.training(), 1);  // stage "all" changes training.batch_size: its own section
        // Stage "head" changes no training key: it reads the base's parse.
        QCOMPARE(trainingSettings(planStages(preset).at(0).preset).batchSize, 32);
        QCOMPARE(count.training(), 1);
    }

    void definitionsThatDoNotParseKeepTheirErrors()
    {
        Preset preset = loaded();
        preset.blocks.insert(QStringLiteral("broken"), QJsonObject{{QStringLiteral("nodes"), QJsonArray()}});
        const Result<CompositeDefinition> broken = compositeDefinition(preset, QStringLiteral("broken"));
        QVERIFY(!broken.ok());
        QCOMPARE(broken.error().field, QStringLiteral("blocks.broken.nodes"));
        QVERIFY(!presetBlockRegistry(preset).find(QStringLiteral("broken")));
        QVERIFY(presetBlockRegistry(preset).find(QStringLiteral("dense")));
        QVERIFY(!compositeDefinition(preset, QStringLiteral("nothing")).ok());
    }
};

TY_TEST_CLASS(TestPresetSections)
#include "test_preset_sections.moc"
