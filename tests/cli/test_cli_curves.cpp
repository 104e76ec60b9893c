// Classifier curves at the command line: the synthetic classifier with a metric.auc node logs val/auc after every
// epoch and test/auc at the end (and no train/auc), well above chance; `evaluate --json` has the one-vs-rest ROC
// and precision-recall curves with their areas, the macro figure equal to the run's test/auc, and for two classes
// the positive class's.

#include "blobs_preset.h"
#include "cli.h"
#include "cli_in_process.h"
#include "run_database.h"
#include "training_module.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace ty;

namespace {

using Output = tytest::CliOutput;
using tytest::trainyard;

// The blobs classifier (tests/common/blobs_preset.h) with a node "auc" reading its logits.
QString writeAucPreset(const QTemporaryDir &dir)
{
    const QString path = tytest::writeBlobsPreset(dir, R"("epochs": 3, "batch_size": 32, "device": "cpu")");
    QFile file(path);
    file.open(QIODevice::ReadOnly);
    QJsonObject preset = QJsonDocument::fromJson(file.readAll()).object();
    file.close();
    QJsonArray nodes = preset.value(QStringLiteral("nodes")).toArray();
    nodes.append(QJsonObject{{QStringLiteral("id"), QStringLiteral("auc")}, {QStringLiteral("block"), QStringLiteral("metric.auc")}});
    preset.insert(QStringLiteral("nodes"), nodes);
    QJsonArray edges = preset.value(QStringLiteral("edges")).toArray();
    edges.append(QJsonObject{{QStringLiteral("from"), QStringLiteral("fc2.out")}, {QStringLiteral("to"), QStringLiteral("auc.input")}});
    edges.append(QJsonObject{{QStringLiteral("from"), QStringLiteral("data.target")}, {QStringLiteral("to"), QStringLiteral("auc.target")}});
    preset.insert(QStringLiteral("edges"), edges);
    file.open(QIODevice::WriteOnly | QIODevice::Truncate);
    file.write(QJsonDocument(preset).toJson());
    return path;
}

QList<MetricPoint> rows(const QString &db, const QString &name)
{
    return RunDatabase::open(db).value()->metrics(1, name).value();
}

double trapezoids(const QJsonArray &x, const QJsonArray &y)
{
    double area = 0;
    for (qsizetype i = 1; i < x.size(); ++i)
        area += (x[i].toDouble() - x[i - 1].toDouble()) * (y[i].toDouble() + y[i - 1].toDouble()) / 2;
    return area;
}

class TestCliCurves : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { cli::linkTrainingCommands(); }
    void aucIsLoggedPerPassAndEvaluated();
    void twoClassesTakeThePositiveClass();
};

void TestCliCurves::aucIsLoggedPerPassAndEvaluated()
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
    const Output run = trainyard({QStringLiteral("run"), writeAucPreset(dir), QStringLiteral("--db"), db, QStringLiteral("--quiet")});
    QVERIFY2(run.code == 0, qPrintable(run.err));
    // One val/auc per epoch, well above chance; none per training step.
    const QList<MetricPoint> val = rows(db, QStringLiteral("val/auc"));
    QCOMPARE(val.size(), 3);
    QVERIFY2(val.last().value > 0.85 && val.last().value <= 1.0, qPrintable(QString::number(val.last().value)));
    QVERIFY(rows(db, QStringLiteral("train/auc")).isEmpty());
    QVERIFY(!rows(db, QStringLiteral("train/accuracy")).isEmpty());
    const QList<MetricPoint> test = rows(db, QStringLiteral("test/auc"));
    QCOMPARE(test.size(), 1);

    // The run's own evaluation has the curves; evaluate computes the same from the same weights.
    const QList<EvaluationRecord> stored = RunDatabase::open(db).value()->evaluations(1).value();
    QCOMPARE(stored.size(), 1);
    QCOMPARE(stored.first().summary.value(QStringLiteral("roc_auc")).toDouble(), test.first().value);
    const Output evaluated = trainyard({QStringLiteral("evaluate"), QStringLiteral("1"), QStringLiteral("--db"), db, QStringLiteral("--json")});
    QVERIFY2(evaluated.code == 0, qPrintable(evaluated.err));
    const QJsonObject json = QJsonDocument::fromJson(evaluated.out.toUtf8()).object();
    QCOMPARE(json.value(QStringLiteral("roc_auc")).toDouble(), test.first().value);
    QCOMPARE(json.value(QStringLiteral("metrics")).toObject().value(QStringLiteral("auc")).toDouble(), test.first().value);
    QCOMPARE(json.value(QStringLiteral("auc_average")).toString(), QStringLiteral("macro"));
    QCOMPARE(json.value(QStringLiteral("auc_classes")).toInt(), 4);
    QVERIFY(!json.contains(QStringLiteral("auc_note")));
    const double averagePrecision = json.value(QStringLiteral("average_precision")).toDouble();
    QVERIFY2(averagePrecision > 0.7 && averagePrecision <= 1.0, qPrintable(QString::number(averagePrecision)));

    const QJsonArray curves = json.value(QStringLiteral("curves")).toArray();
    const QJsonArray perClass = json.value(QStringLiteral("per_class")).toArray();
    QCOMPARE(curves.size(), 4);
    double sum = 0;
    for (int c = 0; c < 4; ++c) {
        const QJsonObject curve = curves[c].toObject();
        QCOMPARE(curve.value(QStringLiteral("index")).toInt(), c);
        QCOMPARE(curve.value(QStringLiteral("class")).toString(), perClass[c].toObject().value(QStringLiteral("class")).toString());
        QCOMPARE(curve.value(QStringLiteral("positives")).toInt(), perClass[c].toObject().value(QStringLiteral("support")).toInt());
        QCOMPARE(curve.value(QStringLiteral("positives")).toInt() + curve.value(QStringLiteral("negatives")).toInt(), 200);
        const double auc = curve.value(QStringLiteral("roc_auc")).toDouble();
        sum += auc;
        const QJsonArray fpr = curve.value(QStringLiteral("roc")).toObject().value(QStringLiteral("fpr")).toArray();
        const QJsonArray tpr = curve.value(QStringLiteral("roc")).toObject().value(QStringLiteral("tpr")).toArray();
        QCOMPARE(fpr.size(), tpr.size());
        QVERIFY(fpr.size() >= 3 && fpr.size() <= 200);
        QCOMPARE(fpr.first().toDouble(), 0.0);
        QCOMPARE(tpr.first().toDouble(), 0.0);
        QCOMPARE(fpr.last().toDouble(), 1.0);
        QCOMPARE(tpr.last().toDouble(), 1.0);
        // The drawn points enclose the area the figure gives (computed from every threshold).
        QVERIFY2(std::abs(trapezoids(fpr, tpr) - auc) < 2e-3, qPrintable(QStringLiteral("%1 %2").arg(trapezoids(fpr, tpr)).arg(auc)));
        const QJsonArray recall = curve.value(QStringLiteral("pr")).toObject().value(QStringLiteral("recall")).toArray();
        const QJsonArray precision = curve.value(QStringLiteral("pr")).toObject().value(QStringLiteral("precision")).toArray();
        QCOMPARE(recall.size(), precision.size());
        QCOMPARE(recall.first().toDouble(), 0.0);
        QCOMPARE(precision.first().toDouble(), 1.0);
        QCOMPARE(recall.last().toDouble(), 1.0);
        QVERIFY(curve.value(QStringLiteral("thresholds")).toInt() >= fpr.size() - 1);
    }
    QVERIFY(std::abs(sum / 4 - json.value(QStringLiteral("roc_auc")).toDouble()) < 1e-12);

    // The text names them too.
    const Output text = trainyard({QStringLiteral("evaluate"), QStringLiteral("1"), QStringLiteral("--db"), db});
    QVERIFY2(text.out.contains(QStringLiteral("ROC AUC %1").arg(test.first().value, 0, 'f', 4)), qPrintable(text.out));
    QVERIFY2(text.out.contains(QStringLiteral("one-vs-rest, macro over 4 classes")), qPrintable(text.out));
}

void TestCliCurves::twoClassesTakeThePositiveClass()
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
    const Output run = trainyard({QStringLiteral("run"), writeAucPreset(dir), QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                                  QStringLiteral("--set"), QStringLiteral("data.classes=2"), QStringLiteral("--set"), QStringLiteral("fc2.out_features=2")});
    QVERIFY2(run.code == 0, qPrintable(run.err));
    const QJsonObject summary = RunDatabase::open(db).value()->evaluations(1).value().first().summary;
    QCOMPARE(summary.value(QStringLiteral("auc_average")).toString(), QStringLiteral("positive class"));
    QCOMPARE(summary.value(QStringLiteral("positive_class")).toString(), summary.value(QStringLiteral("classes")).toArray()[1].toString());
    QCOMPARE(summary.value(QStringLiteral("auc_classes")).toInt(), 1);
    const QJsonArray curves = summary.value(QStringLiteral("curves")).toArray();
    QCOMPARE(curves.size(), 2);
    QCOMPARE(summary.value(QStringLiteral("roc_auc")).toDouble(), curves[1].toObject().value(QStringLiteral("roc_auc")).toDouble());
    QCOMPARE(summary.value(QStringLiteral("average_precision")).toDouble(),
             curves[1].toObject().value(QStringLiteral("average_precision")).toDouble());
    QCOMPARE(summary.value(QStringLiteral("roc_auc")).toDouble(), rows(db, QStringLiteral("test/auc")).first().value);
    QVERIFY(summary.value(QStringLiteral("roc_auc")).toDouble() > 0.85);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    TestCliCurves tests;
    return QTest::qExec(&tests, argc, argv);
}

#include "test_cli_curves.moc"
