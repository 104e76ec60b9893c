// trainyard-cli report: a run's and a sweep's report as one self-contained HTML file. A real run of the blobs
// classifier, evaluated, then reported: every section, the JSON data block with every metric row, each SVG (and the
// whole page) well-formed XML, the preset's MACs as validate counts them; a synthetic run of 10,000 points per curve
// under 2 MB, its curves thinned for drawing; names from the database (a run name, class names) escaped; a sweep's
// trial table; bad input refused with exit 2 and nothing written.

#include "blobs_preset.h"
#include "synthetic_sweep.h"
#include "cli_in_process.h"
#include "test_suite.h"

#include "evaluation_records.h"
#include "evaluation_report.h"
#include "run_database.h"
#include "run_writer.h"
#include "training_module.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <random>

using namespace ty;
using tytest::trainyard;

namespace {

const QString kEvilName = QStringLiteral("<script>alert('run')</script> & \"co\"");

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The JSON of the page's data block, parsed; an empty object when it is missing or does not parse.
QJsonObject dataBlock(const QByteArray &html)
{
    const QByteArray open = "<script type=\"application/json\" id=\"trainyard-data\">";
    const qsizetype start = html.indexOf(open);
    const qsizetype end = html.indexOf("</script>", start);
    if (start < 0 || end < 0)
        return {};
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(html.mid(start + open.size(), end - start - open.size()), &error);
    return error.error == QJsonParseError::NoError ? doc.object() : QJsonObject();
}

// Every <svg>...</svg> of the page, each checked on its own with an XML reader; the count, or -1 for one that is
// not well-formed (its error in `problem`).
int wellFormedSvgs(const QByteArray &html, QString *problem)
{
    int count = 0;
    for (qsizetype at = html.indexOf("<svg"); at >= 0; at = html.indexOf("<svg", at + 1)) {
        const qsizetype end = html.indexOf("</svg>", at);
        if (end < 0) {
            *problem = QStringLiteral("an <svg> without its end");
            return -1;
        }
        QXmlStreamReader xml(html.mid(at, end + 6 - at));
        while (!xml.atEnd())
            xml.readNext();
        if (xml.hasError()) {
            *problem = xml.errorString();
            return -1;
        }
        ++count;
    }
    return count;
}

// The whole page read as XML: the XHTML shape the writer keeps.
QString xmlProblem(const QByteArray &html)
{
    QXmlStreamReader xml(html);
    while (!xml.atEnd())
        xml.readNext();
    return xml.hasError() ? QStringLiteral("line %1: %2").arg(xml.lineNumber()).arg(xml.errorString()) : QString();
}

// The page runs no script and names nothing to fetch.
void checkSelfContained(const QByteArray &html)
{
    QCOMPARE(html.count("<script"), 1);  // the data block
    QVERIFY(!html.contains(" src="));
    QVERIFY(!html.contains("<link"));
    QVERIFY(!html.contains("@import"));
    QVERIFY(!html.contains("url("));
    QVERIFY(!html.contains("href=\"http"));
}


} // namespace

class TestCliReport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        cli::linkTrainingCommands();
        qputenv("TRAINYARD_CLI", TRAINYARD_CLI);
    }

    void aRunReportHasEverySection();
    void tenThousandPointsStayUnderTwoMegabytes();
    void aSweepReportHasItsTrials();
    void aSweepReportHasTheImportance();
    void badInputWritesNothing();
};

void TestCliReport::aRunReportHasEverySection()
{
    QTemporaryDir dir;
    const QString preset = tytest::writeBlobsPreset(dir, R"("epochs": 3, "batch_size": 32, "device": "cpu", "seed": 5)");
    const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
    const tytest::CliOutput run = trainyard({QStringLiteral("run"), preset, QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                                             QStringLiteral("--name"), kEvilName});
    QVERIFY2(run.code == 0, qPrintable(run.err));
    const tytest::CliOutput evaluated = trainyard({QStringLiteral("evaluate"), QStringLiteral("1"), QStringLiteral("--db"), db});
    QVERIFY2(evaluated.code == 0, qPrintable(evaluated.err));

    const QString html = dir.filePath(QStringLiteral("report.html"));
    const tytest::CliOutput report = trainyard({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--html"), html,
                                                QStringLiteral("--db"), db});
    QVERIFY2(report.code == 0, qPrintable(report.err));
    QVERIFY2(report.out.contains(html), qPrintable(report.out));
    const QByteArray page = readAll(html);
    QVERIFY(page.startsWith("<!DOCTYPE html>"));
    for (const char *section : {"id=\"preset\"", "id=\"curves\"", "id=\"evaluation\"", "id=\"provenance\"", "id=\"data\""})
        QVERIFY2(page.contains(section), section);
    for (const char *heading : {"Confusion matrix", "Per class", "ROC and precision-recall curves", "Environment and provenance"})
        QVERIFY2(page.contains(heading), heading);
    checkSelfContained(page);

    // Every SVG is well-formed: the graph, a chart per metric (loss, accuracy), ROC and precision-recall.
    QString problem;
    const int svgs = wellFormedSvgs(page, &problem);
    QVERIFY2(svgs >= 5, qPrintable(QStringLiteral("%1 %2").arg(svgs).arg(problem)));
    QVERIFY2(xmlProblem(page).isEmpty(), qPrintable(xmlProblem(page)));

    // The data block has every metric row of the run, series by series.
    const QJsonObject data = dataBlock(page);
    QCOMPARE(data.value(QStringLiteral("kind")).toString(), QStringLiteral("run"));
    auto database = RunDatabase::open(db).value();
    const QList<MetricPoint> rows = database->metrics(1).value();
    QMap<QString, int> expected;
    for (const MetricPoint &row : rows)
        ++expected[row.name];
    QMap<QString, int> found;
    for (const QJsonValue &v : data.value(QStringLiteral("series")).toArray()) {
        const QJsonObject s = v.toObject();
        const int points = s.value(QStringLiteral("points")).toInt();
        QCOMPARE(s.value(QStringLiteral("value")).toArray().size(), points);
        QCOMPARE(s.value(QStringLiteral("step")).toArray().size(), points);
        QCOMPARE(s.value(QStringLiteral("epoch")).toArray().size(), points);
        found.insert(s.value(QStringLiteral("name")).toString(), points);
    }
    QCOMPARE(found, expected);
    QVERIFY(expected.value(QStringLiteral("train/loss")) > 10);

    // The evaluation shown is the newest, and the run's name went through the JSON unchanged, escaped in the markup.
    const QList<EvaluationRecord> evaluations = database->evaluations(1).value();
    QCOMPARE(data.value(QStringLiteral("evaluation")).toObject(), evaluations.first().summary);
    QCOMPARE(data.value(QStringLiteral("run")).toObject().value(QStringLiteral("name")).toString(), kEvilName);
    QVERIFY(!page.contains("<script>alert"));
    QVERIFY(page.contains("&lt;script&gt;alert(&#39;run&#39;)&lt;/script&gt; &amp; &quot;co&quot;"));

    // The preset's parameters and MACs are validate's.
    const tytest::CliOutput validated = trainyard({QStringLiteral("validate"), preset, QStringLiteral("--json")});
    const QJsonObject validation = QJsonDocument::fromJson(validated.out.toUtf8()).object();
    const QJsonObject presetData = data.value(QStringLiteral("preset")).toObject();
    QCOMPARE(presetData.value(QStringLiteral("parameters")).toInteger(), validation.value(QStringLiteral("total_params")).toInteger());
    const qint64 macs = validation.value(QStringLiteral("macs")).toObject().value(QStringLiteral("forward")).toInteger();
    QVERIFY(macs > 0);
    QCOMPARE(presetData.value(QStringLiteral("macs")).toObject().value(QStringLiteral("forward")).toInteger(), macs);
    QVERIFY(page.contains(QLocale(QLocale::English).toString(macs).toUtf8() + " a sample forward"));
    QCOMPARE(presetData.value(QStringLiteral("blocks")).toInt(), 7);
    // The graph picture has a box per node.
    for (const char *node : {"fc1", "fc2", "loss", "opt"})
        QVERIFY2(page.contains(QByteArray(">") + node + "</text>"), node);
    // Provenance: the versions and seed that runs show --json gives.
    const QJsonObject runData = data.value(QStringLiteral("run")).toObject();
    QCOMPARE(runData.value(QStringLiteral("seed")).toInteger(), 5);
    QCOMPARE(runData.value(QStringLiteral("torch_version")).toString(), database->run(1).value().torchVersion);
    QVERIFY(page.contains(database->run(1).value().uuid.toUtf8()));
}

void TestCliReport::tenThousandPointsStayUnderTwoMegabytes()
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
    const QString presetPath = tytest::writeBlobsPreset(dir, R"("epochs": 10, "batch_size": 32, "device": "cpu")");
    const QJsonObject preset = QJsonDocument::fromJson(readAll(presetPath)).object();
    const int kPoints = 10000;
    const QStringList names{QStringLiteral("train/loss"), QStringLiteral("train/accuracy"), QStringLiteral("val/loss"),
                            QStringLiteral("val/accuracy")};
    std::vector<std::vector<float>> written(size_t(names.size()));
    {
        auto database = RunDatabase::open(db).value();
        NewRun newRun;
        newRun.name = kEvilName;
        newRun.preset = preset;
        newRun.presetHash = QStringLiteral("0");
        const qint64 id = database->createRun(newRun).value();
        RunWriter writer(db, id);
        QVERIFY(writer.start().ok());
        // Noisy curves as a trainer writes them: single-precision values, times in seconds.
        std::mt19937 random(7);
        std::normal_distribution<float> noise(0.0f, 0.05f);
        for (int k = 0; k < names.size(); ++k)
            for (int step = 1; step <= kPoints; ++step) {
                const float value = 2.0f / (1.0f + 0.001f * float(step)) + noise(random);
                written[size_t(k)].push_back(value);
                writer.appendMetric(MetricPoint{names[k], step, step / 1000, step * 0.0137, double(value)});
            }
        QVERIFY(writer.finish(RunStatus::Finished).ok());
        // An evaluation whose class names would be markup if written as they are.
        EvaluationReport e;
        e.split = QStringLiteral("test");
        e.count = 10;
        e.classes = QStringList{QStringLiteral("<script>alert('class')</script>"), QStringLiteral("salt & pepper")};
        e.confusion = {4, 1, 2, 3};
        e.accuracy = 0.7;
        e.perClass = {ClassScore{e.classes[0], 0.67, 0.8, 0.73, 5}, ClassScore{e.classes[1], 0.75, 0.6, 0.67, 5}};
        QVERIFY(database->addEvaluation(evaluationRecordOf(id, e, 20), {}).ok());
    }
    const QString html = dir.filePath(QStringLiteral("big.html"));
    const tytest::CliOutput report = trainyard({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--html"), html,
                                                QStringLiteral("--db"), db});
    QVERIFY2(report.code == 0, qPrintable(report.err));
    const QByteArray page = readAll(html);
    QVERIFY2(page.size() < 2 * 1000 * 1000, qPrintable(QString::number(page.size())));
    qInfo("the report of 4 curves of %d points: %lld bytes", kPoints, qint64(page.size()));

    // Every point is in the data, each value the float written.
    const QJsonArray series = dataBlock(page).value(QStringLiteral("series")).toArray();
    QCOMPARE(series.size(), names.size());
    for (const QJsonValue &v : series) {
        const QJsonObject s = v.toObject();
        const qsizetype k = names.indexOf(s.value(QStringLiteral("name")).toString());
        QVERIFY(k >= 0);
        const QJsonArray values = s.value(QStringLiteral("value")).toArray();
        QCOMPARE(values.size(), kPoints);
        QCOMPARE(s.value(QStringLiteral("points")).toInt(), kPoints);
        for (const int i : {0, 1234, kPoints - 1})
            QCOMPARE(float(values[i].toDouble()), written[size_t(k)][size_t(i)]);
        QCOMPARE(s.value(QStringLiteral("step")).toArray().last().toInteger(), kPoints);
    }
    // The drawn curves are thinned: no polyline of more than 500 points.
    const QRegularExpression polyline(QStringLiteral("<polyline[^>]* points=\"([^\"]*)\""));
    int lines = 0;
    for (auto it = polyline.globalMatch(QString::fromUtf8(page)); it.hasNext(); ++lines) {
        const int points = int(it.next().captured(1).count(QLatin1Char(' '))) + 1;
        QVERIFY2(points <= 500 && points >= 100, qPrintable(QString::number(points)));
    }
    QCOMPARE(lines, 4);  // loss: train and val; accuracy: train and val
    QString problem;
    QVERIFY2(wellFormedSvgs(page, &problem) >= 3, qPrintable(problem));
    QVERIFY2(xmlProblem(page).isEmpty(), qPrintable(xmlProblem(page)));
    checkSelfContained(page);

    // Names from the database are text, never markup.
    QVERIFY(!page.contains("<script>alert"));
    QVERIFY(page.contains("&lt;script&gt;alert(&#39;class&#39;)&lt;/script&gt;"));
    QVERIFY(page.contains("salt &amp; pepper"));
    const QJsonObject data = dataBlock(page);
    QCOMPARE(data.value(QStringLiteral("evaluation")).toObject().value(QStringLiteral("classes")).toArray().first().toString(),
             QStringLiteral("<script>alert('class')</script>"));
    QCOMPARE(data.value(QStringLiteral("run")).toObject().value(QStringLiteral("name")).toString(), kEvilName);
}

void TestCliReport::aSweepReportHasItsTrials()
{
    QTemporaryDir dir;
    const QString preset = tytest::writeBlobsPreset(dir, R"("epochs": 2, "batch_size": 32, "device": "cpu", "seed": 3)");
    const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
    const tytest::CliOutput sweep = trainyard({QStringLiteral("sweep"), preset, QStringLiteral("--db"), db, QStringLiteral("--grid"),
                                               QStringLiteral("opt.lr=0.003,0.03"), QStringLiteral("--parallel"), QStringLiteral("2"),
                                               QStringLiteral("--metric"), QStringLiteral("val/accuracy")});
    QVERIFY2(sweep.code == 0, qPrintable(sweep.out + sweep.err));
    const QString html = dir.filePath(QStringLiteral("sweep.html"));
    const tytest::CliOutput report = trainyard({QStringLiteral("report"), QStringLiteral("--sweep"), QStringLiteral("1"),
                                                QStringLiteral("--html"), html, QStringLiteral("--db"), db});
    QVERIFY2(report.code == 0, qPrintable(report.err));
    const QByteArray page = readAll(html);
    for (const char *section : {"id=\"trials\"", "id=\"importance\"", "id=\"preset\"", "id=\"provenance\""})
        QVERIFY2(page.contains(section), section);
    checkSelfContained(page);
    QString problem;
    QVERIFY2(wellFormedSvgs(page, &problem) >= 2, qPrintable(problem));
    QVERIFY2(xmlProblem(page).isEmpty(), qPrintable(xmlProblem(page)));

    // The trials are sweeps show's, best first, with the searched parameter as a column.
    const tytest::CliOutput show = trainyard({QStringLiteral("sweeps"), QStringLiteral("show"), QStringLiteral("1"), QStringLiteral("--db"), db,
                                              QStringLiteral("--json")});
    const QJsonArray shown = QJsonDocument::fromJson(show.out.toUtf8()).object().value(QStringLiteral("trials")).toArray();
    const QJsonObject data = dataBlock(page);
    QCOMPARE(data.value(QStringLiteral("kind")).toString(), QStringLiteral("sweep"));
    const QJsonArray trials = data.value(QStringLiteral("trials")).toArray();
    QCOMPARE(trials.size(), 2);
    for (int i = 0; i < 2; ++i) {
        QCOMPARE(trials[i].toObject().value(QStringLiteral("run")), shown[i].toObject().value(QStringLiteral("run")));
        QCOMPARE(trials[i].toObject().value(QStringLiteral("set")), shown[i].toObject().value(QStringLiteral("set")));
        QCOMPARE(trials[i].toObject().value(QStringLiteral("value")), shown[i].toObject().value(QStringLiteral("value")));
    }
    const qsizetype trialsAt = page.indexOf("id=\"trials\""), trialsEnd = page.indexOf("</section>", trialsAt);
    const QByteArray trialsSection = page.mid(trialsAt, trialsEnd - trialsAt);
    QVERIFY(trialsSection.contains("<th>opt.lr</th>"));
    QCOMPARE(trialsSection.count("<tr>"), 3);  // the header and two trials
    QVERIFY(trialsSection.contains(">0.003</td>") && trialsSection.contains(">0.03</td>"));
    // Two trials are too few for an importance: the section says why, as sweeps show does.
    const QString absent = QJsonDocument::fromJson(show.out.toUtf8()).object().value(QStringLiteral("importance")).toObject()
                               .value(QStringLiteral("absent")).toString();
    QVERIFY(!absent.isEmpty());
    QCOMPARE(data.value(QStringLiteral("importance")).toObject().value(QStringLiteral("absent")).toString(), absent);
    QVERIFY(page.contains(absent.toUtf8()));
}

void TestCliReport::aSweepReportHasTheImportance()
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
    qint64 sweep = 0;
    {
        auto database = RunDatabase::open(db).value();
        sweep = tytest::recordSyntheticSweep(*database, 24);  // val/loss depends on opt.lr alone
    }
    QVERIFY(sweep > 0);
    const QString html = dir.filePath(QStringLiteral("sweep.html"));
    const tytest::CliOutput report = trainyard({QStringLiteral("report"), QStringLiteral("--sweep"), QString::number(sweep),
                                                QStringLiteral("--html"), html, QStringLiteral("--db"), db});
    QVERIFY2(report.code == 0, qPrintable(report.err));
    const QByteArray page = readAll(html);
    // The figures are sweeps show's, opt.lr first.
    const tytest::CliOutput show = trainyard({QStringLiteral("sweeps"), QStringLiteral("show"), QString::number(sweep), QStringLiteral("--db"), db,
                                              QStringLiteral("--json")});
    const QJsonObject shown = QJsonDocument::fromJson(show.out.toUtf8()).object().value(QStringLiteral("importance")).toObject();
    const QJsonObject importance = dataBlock(page).value(QStringLiteral("importance")).toObject();
    QCOMPARE(importance, shown);
    const QJsonArray parameters = importance.value(QStringLiteral("parameters")).toArray();
    QCOMPARE(parameters.size(), 2);
    QCOMPARE(parameters[0].toObject().value(QStringLiteral("key")).toString(), QStringLiteral("opt.lr"));
    // The section: a bar per parameter and the table, opt.lr's row before fc1.out_features'.
    const qsizetype at = page.indexOf("id=\"importance\""), end = page.indexOf("</section>", at);
    QVERIFY(at > 0);
    const QByteArray section = page.mid(at, end - at);
    QCOMPARE(section.count("<svg"), 1);
    QCOMPARE(section.count("fill=\"#1f77b4\""), 2);
    const qsizetype lr = section.indexOf("<td>opt.lr</td>"), width = section.indexOf("<td>fc1.out_features</td>");
    QVERIFY(lr > 0 && width > lr);
    QVERIFY(section.contains("<td>log</td>"));
    QVERIFY(section.contains("24 finished trials"));
    QString problem;
    QVERIFY2(wellFormedSvgs(page, &problem) >= 2, qPrintable(problem));
    QVERIFY2(xmlProblem(page).isEmpty(), qPrintable(xmlProblem(page)));
}

void TestCliReport::badInputWritesNothing()
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
    {
        auto database = RunDatabase::open(db).value();
        NewRun newRun;
        newRun.name = QStringLiteral("one");
        newRun.preset = QJsonObject{{QStringLiteral("format"), QStringLiteral("trainyard-preset")}, {QStringLiteral("version"), 1}};
        QVERIFY(database->createRun(newRun).ok());
    }
    const QString html = dir.filePath(QStringLiteral("report.html"));
    const auto report = [&](const QStringList &arguments) { return trainyard(QStringList{QStringLiteral("report")} + arguments); };

    const tytest::CliOutput noHtml = report({QStringLiteral("1"), QStringLiteral("--db"), db});
    QCOMPARE(noHtml.code, 2);
    QVERIFY2(noHtml.err.contains(QStringLiteral("--html")), qPrintable(noHtml.err));

    const tytest::CliOutput unknownRun = report({QStringLiteral("42"), QStringLiteral("--html"), html, QStringLiteral("--db"), db});
    QCOMPARE(unknownRun.code, 2);
    QVERIFY2(unknownRun.err.contains(QStringLiteral("42")), qPrintable(unknownRun.err));
    QVERIFY(!QFileInfo::exists(html));

    const tytest::CliOutput unknownSweep = report({QStringLiteral("--sweep"), QStringLiteral("7"), QStringLiteral("--html"), html,
                                                   QStringLiteral("--db"), db});
    QCOMPARE(unknownSweep.code, 2);
    QVERIFY2(unknownSweep.err.contains(QStringLiteral("7")), qPrintable(unknownSweep.err));
    QVERIFY(!QFileInfo::exists(html));

    const QString missingDb = dir.filePath(QStringLiteral("none.sqlite"));
    const tytest::CliOutput noDb = report({QStringLiteral("1"), QStringLiteral("--html"), html, QStringLiteral("--db"), missingDb});
    QCOMPARE(noDb.code, 2);
    QVERIFY2(noDb.err.contains(missingDb), qPrintable(noDb.err));
    QVERIFY(!QFileInfo::exists(missingDb));

    const QString unwritable = dir.filePath(QStringLiteral("no-such-folder/report.html"));
    const tytest::CliOutput cannotWrite = report({QStringLiteral("1"), QStringLiteral("--html"), unwritable, QStringLiteral("--db"), db});
    QCOMPARE(cannotWrite.code, 2);
    QVERIFY2(cannotWrite.err.contains(unwritable), qPrintable(cannotWrite.err));
    QVERIFY(!QFileInfo::exists(unwritable));

    // A report over an existing file replaces it only when complete: a failure leaves it as it was.
    QFile existing(html);
    QVERIFY(existing.open(QIODevice::WriteOnly));
    existing.write("before");
    existing.close();
    QCOMPARE(report({QStringLiteral("9"), QStringLiteral("--html"), html, QStringLiteral("--db"), db}).code, 2);
    QCOMPARE(readAll(html), QByteArray("before"));
    const tytest::CliOutput written = report({QStringLiteral("1"), QStringLiteral("--html"), html, QStringLiteral("--db"), db});
    QVERIFY2(written.code == 0, qPrintable(written.err));
    QVERIFY(readAll(html).startsWith("<!DOCTYPE html>"));
    // A run without metrics or a preset that loads still gets its page, saying so.
    QVERIFY(readAll(html).contains("The run recorded no metric values."));
}

TY_TEST_CLASS(TestCliReport)

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    return tytest::runRegisteredTests(argc, argv, "cli_report");
}

#include "test_cli_report.moc"
