// How often the app parses a preset's `training` and `blocks` sections (core/presets/preset_sections.h): once
// each when a file is opened, and for an edit once per section it changes, with every view (canvas, inspector,
// stages editor, issues) and the validation on its own thread reading that parse. Before the parse was carried
// with the preset, one edit of a node's value read the training section 7 times and parsed the composite
// definitions 6 times (3 times each), and opening the file read the training section 21 times.

#include "test_suite.h"
#include "widget_test_support.h"

#include "document/pipeline_document.h"
#include "main_window.h"

#include "preset_sections.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ty;

namespace {

// Two composites (one repeated), two stages (the second changes the batch size, so it has a training section of
// its own), and init_from naming the nodes to carry over.
const char *kPreset = R"({"format": "trainyard-preset", "version": 1, "name": "stages and blocks",
  "blocks": {
    "dense": {
      "params": {"width": {"type": "int", "default": 16, "min": 1, "max": 4096, "bind": ["fc.out_features"]}},
      "inputs": {"in": "fc.in"}, "outputs": {"out": "act.out"},
      "nodes": [{"id": "fc", "block": "layer.linear"}, {"id": "act", "block": "layer.tanh"}],
      "edges": [{"from": "fc.out", "to": "act.in"}]
    },
    "head": {
      "inputs": {"in": "fc.in"}, "outputs": {"out": "fc.out"},
      "nodes": [{"id": "fc", "block": "layer.linear", "params": {"out_features": 4}}], "edges": []
    }
  },
  "nodes": [
    {"id": "data", "block": "dataset.synthetic", "params": {"samples": 600, "test_samples": 200, "noise": 1.0}},
    {"id": "body", "block": "dense", "repeat": 2},
    {"id": "out", "block": "head"},
    {"id": "loss", "block": "loss.cross_entropy"},
    {"id": "accuracy", "block": "metric.accuracy"},
    {"id": "opt", "block": "optimizer.adam", "params": {"lr": 0.01}}
  ],
  "edges": [
    {"from": "data.features", "to": "body.in"}, {"from": "body.out", "to": "out.in"},
    {"from": "out.out", "to": "loss.input"}, {"from": "data.target", "to": "loss.target"},
    {"from": "out.out", "to": "accuracy.input"}, {"from": "data.target", "to": "accuracy.target"},
    {"from": "loss.loss", "to": "opt.loss"}
  ],
  "training": {"batch_size": 32, "device": "cpu", "init_from": {"nodes": ["body"]},
               "stages": [{"name": "head", "epochs": 1, "freeze": ["body"], "set": {"opt.lr": 0.02}},
                          {"name": "all", "epochs": 1, "unfreeze": ["body"], "set": {"training.batch_size": 64}}]}
})";

} // namespace

class TestSectionParses : public QObject {
    Q_OBJECT

    std::unique_ptr<MainWindow> window;
    QTemporaryDir dir;
    SectionParses start;

    PipelineDocument *doc() const { return window->document(); }

    // Parses since the last count.
    SectionParses counted()
    {
        const SectionParses now = sectionParses();
        const SectionParses out{now.training - start.training, now.blocks - start.blocks};
        start = now;
        return out;
    }

    // Until the edit is validated and every view has caught up with it.
    void settle()
    {
        QTRY_VERIFY(!doc()->validationPending());
        QTest::qWait(50);
        QTRY_VERIFY(!doc()->validationPending());
    }

private Q_SLOTS:
    void init()
    {
        window = std::make_unique<MainWindow>();
        window->setInteractive(false);
        window->resize(1800, 1100);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        settle();
        const QString path = dir.filePath(QStringLiteral("sections.trainyard.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(kPreset);
        file.close();
        counted();
        QVERIFY(window->openFile(path));
        settle();
        QVERIFY2(!hasErrors(doc()->report().issues), qPrintable(doc()->report().issues.value(0).toString()));
    }

    void cleanup() { window.reset(); }

    void openingParsesEachSectionOnce()
    {
        // Opening read it in init(): the file's two sections, and the training section of stage "all", which
        // changes the batch size.
        const QString path = doc()->fileName();
        counted();
        QVERIFY(window->openFile(path));
        settle();
        const SectionParses opened = counted();
        QCOMPARE(opened.training, 2);
        QCOMPARE(opened.blocks, 1);
    }

    void anEditParsesOnlyTheSectionItChanges()
    {
        counted();
        QVERIFY(doc()->setParam(QStringLiteral("opt"), QStringLiteral("lr"), 0.03).isEmpty());
        settle();
        SectionParses edit = counted();
        QCOMPARE(edit.training, 0);
        QCOMPARE(edit.blocks, 0);

        // With a node selected, the inspector shows it: still nothing.
        doc()->setSelectedNodes({QStringLiteral("body")});
        settle();
        QVERIFY(doc()->setParam(QStringLiteral("body"), QStringLiteral("width"), 12).isEmpty());
        settle();
        edit = counted();
        QCOMPARE(edit.training, 0);
        QCOMPARE(edit.blocks, 0);

        // A training value: the section once, and the section of the stage that overrides its batch size once.
        QVERIFY(doc()->setTrainingValue(QStringLiteral("seed"), 3).isEmpty());
        settle();
        edit = counted();
        QCOMPARE(edit.training, 2);
        QCOMPARE(edit.blocks, 0);

        // A composite's definition: the blocks once.
        QVERIFY(doc()->exposeInnerParam(QStringLiteral("head"), QStringLiteral("fc.bias")).isEmpty());
        settle();
        edit = counted();
        QCOMPARE(edit.training, 0);
        QCOMPARE(edit.blocks, 1);
    }
};

TY_TEST_CLASS(TestSectionParses)
#include "test_section_parses.moc"
