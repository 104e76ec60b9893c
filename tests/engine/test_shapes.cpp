// Validation with shape inference: shapes and parameter counts through the training builders, and shape
// problems pinned to the node that causes them.

#include "required_data.h"
#include "engine_fixtures.h"
#include "shape_inference.h"
#include "test_engine_classes.h"

#include <QDir>
#include <QtTest>

using namespace ty;

namespace {

bool haveFashionMnist() { return QDir(QStringLiteral("/usr/share/datasets/fashion-mnist")).exists(); }

const Issue *firstError(const ShapeReport &report)
{
    for (const Issue &issue : report.issues)
        if (issue.severity == Severity::Error)
            return &issue;
    return nullptr;
}

} // namespace

void TestShapes::bundledPresetsHaveNoIssues_data()
{
    QTest::addColumn<QString>("name");
    for (const QString &file : QDir(QStringLiteral(TRAINYARD_SOURCE_DIR "/presets")).entryList({QStringLiteral("*.trainyard.json")}))
        QTest::newRow(qPrintable(file)) << file.chopped(int(strlen(".trainyard.json")));
}

void TestShapes::bundledPresetsHaveNoIssues()
{
    QFETCH(QString, name);
    Preset preset = test::bundledPreset(name);
    if ((name.startsWith(QStringLiteral("fashion-mnist")) || name.startsWith(QStringLiteral("transfer-"))) && !haveFashionMnist())
        TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
    QTemporaryDir images;  // the image folder preset's PNG files, written by its script
    if (name == QStringLiteral("image-folder-cnn") && !test::useSmallImageFolder(preset, images.path(), 30))
        TY_SKIP_WITHOUT_DATA("needs Fashion-MNIST (dataset-fashion-mnist) and python3 to write the PNG files");
    const ShapeReport report = inspectPreset(preset);
    for (const Issue &issue : report.issues)  // notes (a warm start left to --init-from) are not problems
        QVERIFY2(issue.severity == Severity::Info, qPrintable(issue.toString()));
    for (const Node &node : preset.graph.nodes)
        QVERIFY2(report.nodes.contains(node.id), qPrintable(node.id));
}

void TestShapes::bundledParameterTotals()
{
    if (!haveFashionMnist())
        TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
    // 784*256+256 + 256*128+128 + 128*100+100 + 100*10+10
    QCOMPARE(inspectPreset(test::bundledPreset(QStringLiteral("fashion-mnist-mlp"))).totalParams, qint64(247766));
    // conv 5x5x1x32+32, conv 5x5x32x64+64, dense 3136x1024+1024, dense 1024x10+10
    const ShapeReport cnn = inspectPreset(test::bundledPreset(QStringLiteral("fashion-mnist-cnn")));
    QCOMPARE(cnn.totalParams, qint64(3274634));
    QCOMPARE(cnn.nodes.value(QStringLiteral("pool2")).outputShape, (std::vector<qint64>{64, 7, 7}));
    QCOMPARE(cnn.nodes.value(QStringLiteral("flatten")).outputShape, (std::vector<qint64>{3136}));
    QCOMPARE(cnn.nodes.value(QStringLiteral("fc1")).paramCount, qint64(3136 * 1024 + 1024));
}

void TestShapes::shapeMismatchIsPinnedToTheNode_data()
{
    QTest::addColumn<QString>("set");       // an override that breaks the MLP-like classifier
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("where");     // port or param
    QTest::addColumn<QString>("message");   // part of the message

    QTest::newRow("too few logits") << "fc_out.out_features=3" << "loss" << "input" << "expects [4] logits per sample (4 classes), got [3]";
    QTest::newRow("metric too") << "fc_out.out_features=5" << "accuracy" << "input" << "got [5]";
}

void TestShapes::shapeMismatchIsPinnedToTheNode()
{
    QFETCH(QString, set);
    QFETCH(QString, node);
    QFETCH(QString, where);
    QFETCH(QString, message);
    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.sgd"), 0.1);
    const int eq = set.indexOf(QLatin1Char('='));
    const QString id = set.left(set.indexOf(QLatin1Char('.')));
    preset.graph.node(id)->params.insert(set.mid(id.size() + 1, eq - id.size() - 1), set.mid(eq + 1).toInt());
    const ShapeReport report = inspectPreset(preset);
    bool found = false;
    for (const Issue &issue : report.issues)
        if (issue.node == node && (issue.port == where || issue.param == where) && issue.message.contains(message))
            found = true;
    QVERIFY2(found, qPrintable(report.issues.isEmpty() ? QStringLiteral("no issues") : report.issues.first().toString()));
}

void TestShapes::missingDataFileIsAnIssueOfTheDatasetNode()
{
    const Preset preset = test::makePreset(
        {QJsonObject{{QStringLiteral("id"), QStringLiteral("data")}, {QStringLiteral("block"), QStringLiteral("dataset.idx")},
                     {QStringLiteral("params"), QJsonObject{{QStringLiteral("train_images"), QStringLiteral("/nonexistent/train-images")},
                                                            {QStringLiteral("train_labels"), QStringLiteral("/nonexistent/train-labels")}}}},
         QJsonObject{{QStringLiteral("id"), QStringLiteral("fc")}, {QStringLiteral("block"), QStringLiteral("layer.linear")}},
         QJsonObject{{QStringLiteral("id"), QStringLiteral("loss")}, {QStringLiteral("block"), QStringLiteral("loss.cross_entropy")}},
         QJsonObject{{QStringLiteral("id"), QStringLiteral("opt")}, {QStringLiteral("block"), QStringLiteral("optimizer.sgd")}}},
        {QStringLiteral("data.images -> fc.in"), QStringLiteral("fc.out -> loss.input"), QStringLiteral("data.labels -> loss.target"),
         QStringLiteral("loss.loss -> opt.loss")});
    const ShapeReport report = inspectPreset(preset);
    const Issue *issue = firstError(report);
    QVERIFY(issue);
    QCOMPARE(issue->node, QStringLiteral("data"));
    QCOMPARE(issue->param, QStringLiteral("train_images"));
    QVERIFY2(issue->message.contains(QStringLiteral("/nonexistent/train-images")), qPrintable(issue->message));
}

void TestShapes::issuesDownstreamOfABrokenNodeAreNotInvented()
{
    // A conv2d on flat features fails; the nodes after it get no shape but no made-up issues either.
    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.sgd"), 0.1);
    preset.graph.node(QStringLiteral("fc1"))->block = QStringLiteral("layer.conv2d");
    preset.graph.node(QStringLiteral("fc1"))->params = QJsonObject{};
    const ShapeReport report = inspectPreset(preset);
    int errors = 0;
    for (const Issue &issue : report.issues)
        if (issue.severity == Severity::Error) {
            ++errors;
            QCOMPARE(issue.node, QStringLiteral("fc1"));
            QCOMPARE(issue.port, QStringLiteral("in"));
            QVERIFY2(issue.message.contains(QStringLiteral("expects [channels, height, width] samples, got [8]")), qPrintable(issue.message));
        }
    QCOMPARE(errors, 1);
    QVERIFY(!report.nodes.value(QStringLiteral("fc_out")).known);
    QVERIFY(report.nodes.value(QStringLiteral("flatten")).known);
}

// add with a free optional port between connected ones (a, b and d; c free): a mismatch on d is pinned to d, not
// to the third connected input's letter.
void TestShapes::joinErrorsNameTheirPort()
{
    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.sgd"), 0.1);
    preset.graph.nodes.append(Node{QStringLiteral("narrow"), QStringLiteral("layer.linear"), QJsonObject{{QStringLiteral("out_features"), 5}}, {}});
    preset.graph.nodes.append(Node{QStringLiteral("sum"), QStringLiteral("layer.add"), {}, {}});
    preset.graph.edges.append(Edge{{QStringLiteral("act"), QStringLiteral("out")}, {QStringLiteral("narrow"), QStringLiteral("in")}});
    preset.graph.edges.append(Edge{{QStringLiteral("act"), QStringLiteral("out")}, {QStringLiteral("sum"), QStringLiteral("a")}});
    preset.graph.edges.append(Edge{{QStringLiteral("act"), QStringLiteral("out")}, {QStringLiteral("sum"), QStringLiteral("b")}});
    preset.graph.edges.append(Edge{{QStringLiteral("narrow"), QStringLiteral("out")}, {QStringLiteral("sum"), QStringLiteral("d")}});
    const ShapeReport report = inspectPreset(preset);
    bool found = false;
    for (const Issue &issue : report.issues)
        found = found || (issue.node == QStringLiteral("sum") && issue.port == QStringLiteral("d") && issue.message.contains(QStringLiteral("same shape")));
    QVERIFY2(found, qPrintable(report.issues.isEmpty() ? QStringLiteral("no issues") : report.issues.first().toString()));
    // As wide as the others, the three inputs add up: no issue at the node.
    preset.graph.node(QStringLiteral("narrow"))->params.insert(QStringLiteral("out_features"), 32);
    for (const Issue &issue : inspectPreset(preset).issues)
        QVERIFY2(issue.node != QStringLiteral("sum") || issue.severity != Severity::Error, qPrintable(issue.toString()));
}
