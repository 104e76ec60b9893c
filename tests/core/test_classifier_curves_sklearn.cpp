// core/evaluation's classifier curves against scikit-learn on the same predictions: the test writes random
// probabilities with many ties (two classes, several, one class missing from the labels), Debian's
// /usr/bin/python3 with python3-sklearn computes roc_auc_score, average_precision_score, roc_curve and
// precision_recall_curve (tests/core/sklearn_curves.py), and every figure and curve point must agree to 1e-6.
// Without scikit-learn the test skips, or fails where TRAINYARD_REQUIRE_DATA is set.

#include "test_suite.h"
#include "required_data.h"

#include "classifier_curves.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <random>
#include <vector>

using namespace ty;

namespace {

const QString kPython = QStringLiteral("/usr/bin/python3");  // Debian's, which python3-sklearn installs into
constexpr double kTolerance = 1e-6;

struct Predictions {
    int64_t classes = 0;
    std::vector<double> probabilities;  // count x classes
    std::vector<int64_t> labels;
};

// `count` rows of small whole weights (0 to `levels`, at least one above 0) over their sum, so that equal scores
// are frequent and exactly equal, and rows sum to 1. Labels are drawn in proportion to weight + 0.5, so the
// scores tell something; `missing` (if >= 0) is never a label.
Predictions randomPredictions(int64_t classes, int count, int levels, int64_t missing, unsigned seed)
{
    std::mt19937 random(seed);
    Predictions p;
    p.classes = classes;
    for (int i = 0; i < count; ++i) {
        std::vector<double> weights(static_cast<size_t>(classes));
        double sum = 0;
        while (sum == 0) {
            sum = 0;
            for (double &w : weights) {
                w = double(std::uniform_int_distribution<int>(0, levels)(random));
                sum += w;
            }
        }
        std::vector<double> odds;
        for (int64_t c = 0; c < classes; ++c) {
            p.probabilities.push_back(weights[size_t(c)] / sum);
            odds.push_back(c == missing ? 0.0 : weights[size_t(c)] + 0.5);
        }
        p.labels.push_back(std::discrete_distribution<int64_t>(odds.begin(), odds.end())(random));
    }
    return p;
}

bool scikitLearnInstalled()
{
    QProcess python;
    python.start(kPython, {QStringLiteral("-c"), QStringLiteral("import sklearn.metrics")});
    return python.waitForFinished(60000) && python.exitStatus() == QProcess::NormalExit && python.exitCode() == 0;
}

// scikit-learn's answer for `p` (sklearn_curves.py), or an empty object after a failed check.
QJsonObject scikitLearnFigures(const Predictions &p, const QString &folder)
{
    const QString path = folder + QStringLiteral("/predictions.txt");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    QByteArray text = QByteArray::number(qint64(p.classes)) + '\n';
    for (size_t i = 0; i < p.labels.size(); ++i) {
        text += QByteArray::number(qint64(p.labels[i]));
        for (int64_t c = 0; c < p.classes; ++c)
            text += ' ' + QByteArray::number(p.probabilities[i * size_t(p.classes) + size_t(c)], 'g', 17);
        text += '\n';
    }
    file.write(text);
    file.close();
    QProcess python;
    python.start(kPython, {QStringLiteral(TRAINYARD_SOURCE_DIR "/tests/core/sklearn_curves.py"), path});
    if (!python.waitForFinished(120000) || python.exitCode() != 0) {
        qWarning("sklearn_curves.py: %s", python.readAllStandardError().constData());
        return {};
    }
    return QJsonDocument::fromJson(python.readAllStandardOutput()).object();
}

// Whether scikit-learn's value (a number, or {"error": ...} where it refuses) matches ours (a value, or none).
bool sameFigure(const QJsonValue &theirs, const std::optional<double> &ours)
{
    if (!theirs.isDouble())
        return !ours && theirs.toObject().contains(QStringLiteral("error"));
    return ours && std::abs(*ours - theirs.toDouble()) <= kTolerance;
}

// Points against scikit-learn's arrays, in its order (`reversed` for precision_recall_curve, which runs from the
// lowest threshold).
void compareCurve(const CurvePoints &ours, const QJsonArray &theirX, const QJsonArray &theirY, bool reversed, const char *what)
{
    QVERIFY2(!ours.x.empty(), what);
    QCOMPARE(qsizetype(ours.x.size()), theirX.size());
    QCOMPARE(theirX.size(), theirY.size());
    const size_t n = ours.x.size();
    for (size_t k = 0; k < n; ++k) {
        const qsizetype j = qsizetype(reversed ? n - 1 - k : k);
        QVERIFY2(std::abs(ours.x[k] - theirX[j].toDouble()) <= kTolerance && std::abs(ours.y[k] - theirY[j].toDouble()) <= kTolerance,
                 qPrintable(QStringLiteral("%1, point %2: (%3, %4), scikit-learn (%5, %6)").arg(QLatin1String(what)).arg(k)
                                .arg(ours.x[k]).arg(ours.y[k]).arg(theirX[j].toDouble()).arg(theirY[j].toDouble())));
    }
}

class TestClassifierCurvesSklearn : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void matchesScikitLearn_data();
    void matchesScikitLearn();

private:
    QTemporaryDir m_folder;
};

void TestClassifierCurvesSklearn::initTestCase()
{
    if (!scikitLearnInstalled())
        TY_SKIP_WITHOUT_DATA("scikit-learn is not installed for /usr/bin/python3 (python3-sklearn)");
    QVERIFY(m_folder.isValid());
}

void TestClassifierCurvesSklearn::matchesScikitLearn_data()
{
    QTest::addColumn<int>("classes");
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("levels");
    QTest::addColumn<int>("missing");
    QTest::addColumn<unsigned>("seed");
    QTest::newRow("two classes, heavy ties") << 2 << 300 << 4 << -1 << 1u;
    QTest::newRow("two classes, few ties") << 2 << 500 << 1000 << -1 << 2u;
    QTest::newRow("five classes") << 5 << 400 << 3 << -1 << 3u;
    QTest::newRow("ten classes, fine scores") << 10 << 2000 << 200 << -1 << 4u;
    QTest::newRow("four classes, one never a label") << 4 << 200 << 3 << 2 << 5u;
    QTest::newRow("two classes, positive never a label") << 2 << 100 << 4 << 1 << 6u;
}

void TestClassifierCurvesSklearn::matchesScikitLearn()
{
    QFETCH(int, classes);
    QFETCH(int, count);
    QFETCH(int, levels);
    QFETCH(int, missing);
    QFETCH(unsigned, seed);
    const Predictions p = randomPredictions(classes, count, levels, missing, seed);
    const QJsonObject theirs = scikitLearnFigures(p, m_folder.path());
    QVERIFY2(!theirs.isEmpty(), "scikit-learn gave no answer");
    const QJsonArray theirClasses = theirs.value(QStringLiteral("classes")).toArray();
    QCOMPARE(theirClasses.size(), qsizetype(classes));

    const ClassifierCurves curves = classifierCurves(p.probabilities, p.labels, classes, {});
    QCOMPARE(curves.perClass.size(), qsizetype(classes));
    for (int c = 0; c < classes; ++c) {
        const QJsonObject their = theirClasses[c].toObject();
        const ClassCurves &ours = curves.perClass[c];
        QVERIFY2(sameFigure(their.value(QStringLiteral("roc_auc")), ours.rocAuc),
                 qPrintable(QStringLiteral("class %1 ROC AUC: ours %2, scikit-learn %3").arg(c).arg(ours.rocAuc.value_or(-1))
                                .arg(QString::fromUtf8(QJsonDocument(their).toJson(QJsonDocument::Compact).left(120)))));
        // Where the ROC AUC is undefined scikit-learn still gives an average precision (0 for a class without
        // samples, with a warning; 1 for a class that is every sample); ours is none, as the ROC AUC.
        if (ours.positives > 0 && ours.negatives > 0)
            QVERIFY2(sameFigure(their.value(QStringLiteral("average_precision")), ours.averagePrecision),
                     qPrintable(QStringLiteral("class %1 average precision: ours %2").arg(c).arg(ours.averagePrecision.value_or(-1))));
        QCOMPARE(ours.reason.isEmpty(), bool(ours.rocAuc));
        if (!their.contains(QStringLiteral("fpr")))
            continue;
        // The full curves, before thinning, point by point.
        std::vector<double> column;
        std::vector<bool> positive;
        for (size_t i = 0; i < p.labels.size(); ++i) {
            column.push_back(p.probabilities[i * size_t(classes) + size_t(c)]);
            positive.push_back(p.labels[i] == c);
        }
        const RankedScores ranked = rankScores(column, positive);
        compareCurve(rocCurve(ranked), their.value(QStringLiteral("fpr")).toArray(), their.value(QStringLiteral("tpr")).toArray(), false, "ROC");
        compareCurve(precisionRecallCurve(ranked), their.value(QStringLiteral("recall")).toArray(),
                     their.value(QStringLiteral("precision")).toArray(), true, "precision-recall");
    }
    // The headline: scikit-learn's own macro (or binary) figure where it gives one; where it refuses (a class
    // missing), ours is the mean over the classes it scores one by one.
    const QJsonValue theirAuc = theirs.value(QStringLiteral("roc_auc"));
    if (theirAuc.isDouble()) {
        QVERIFY(curves.rocAuc);
        QVERIFY2(std::abs(*curves.rocAuc - theirAuc.toDouble()) <= kTolerance,
                 qPrintable(QStringLiteral("ROC AUC: ours %1, scikit-learn %2").arg(*curves.rocAuc, 0, 'g', 17).arg(theirAuc.toDouble(), 0, 'g', 17)));
        QVERIFY(curves.note.isEmpty());
        QCOMPARE(curves.averagedClasses, classes == 2 ? 1 : classes);
    } else {
        QVERIFY2(theirAuc.toObject().contains(QStringLiteral("error")), "scikit-learn neither scored nor refused");
        QVERIFY(!curves.note.isEmpty());
        if (classes == 2) {
            QVERIFY(!curves.rocAuc);
        } else {
            double sum = 0;
            int scored = 0;
            for (const QJsonValue &v : theirClasses)
                if (v.toObject().value(QStringLiteral("roc_auc")).isDouble()) {
                    sum += v.toObject().value(QStringLiteral("roc_auc")).toDouble();
                    ++scored;
                }
            QCOMPARE(curves.averagedClasses, scored);
            QVERIFY(curves.rocAuc && std::abs(*curves.rocAuc - sum / scored) <= kTolerance);
        }
    }
    if (classes == 2) {
        const QJsonValue theirAp = theirs.value(QStringLiteral("average_precision"));
        if (curves.averagePrecision)
            QVERIFY(std::abs(*curves.averagePrecision - theirAp.toDouble()) <= kTolerance);
    } else if (curves.averagePrecision) {
        double sum = 0;
        for (const ClassCurves &c : curves.perClass)
            if (c.rocAuc)
                sum += theirClasses[c.index].toObject().value(QStringLiteral("average_precision")).toDouble();
        QVERIFY(std::abs(*curves.averagePrecision - sum / curves.averagedClasses) <= kTolerance);
    }
    // metric.auc's figure is the same headline.
    const std::optional<double> headline = headlineRocAuc(p.probabilities, p.labels, classes);
    QCOMPARE(bool(headline), bool(curves.rocAuc));
    if (headline)
        QCOMPARE(*headline, *curves.rocAuc);
}

} // namespace

TY_TEST_CLASS(TestClassifierCurvesSklearn)

#include "test_classifier_curves_sklearn.moc"
