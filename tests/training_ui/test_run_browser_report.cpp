// RunBrowser's reports on database fixtures: "Export Report…" (context menu, file dialog replaced) follows the selection
// (one run), suggests run-ID.html and writes the selected run's self-contained page, reported in the status line and
// by reportExported; a sweep's report has its trials; a run that is not there and a folder that cannot be written are
// refused, naming them, with nothing written.

#include "test_suite.h"
#include "runs/run_browser.h"
#include "training_ui_support.h"

#include "preset_format.h"

#include <QAction>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QMenu>
#include <QSignalSpy>
#include <QtTest>

#include <memory>

using namespace ty;
using tytest::RunsFixture;

namespace {

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestRunBrowserReport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_f = std::make_unique<RunsFixture>();
        QVERIFY(m_f->open());
        m_a = m_f->addRun(QStringLiteral("first <b>bold</b> & co"), RunStatus::Finished, 30);
        m_b = m_f->addRun(QStringLiteral("second"), RunStatus::Finished, 10);
        QVERIFY(m_a && m_b);
        m_browser = std::make_unique<RunBrowser>();
        m_browser->setSaveFileChooser([this](const QString &title, const QString &suggestion, const QString &) {
            m_asked << title << suggestion;
            return m_answer;
        });
        QVERIFY(m_browser->openDatabase(m_f->path).ok());
    }

    void cleanup()
    {
        m_browser.reset();
        m_f.reset();
        m_asked.clear();
    }

    void actionFollowsTheSelection()
    {
        QAction *report = m_browser->reportAction();
        QVERIFY(!report->isEnabled());
        m_browser->selectRuns({m_a});
        QVERIFY(report->isEnabled());
        m_browser->selectRuns({m_a, m_b});
        QVERIFY(!report->isEnabled());
        std::unique_ptr<QMenu> menu(m_browser->createContextMenu(nullptr));
        QVERIFY(menu->actions().contains(report));
    }

    void theSelectedRunsReportIsWritten()
    {
        m_browser->selectRuns({m_a});
        m_answer = m_f->dir.filePath(QStringLiteral("shared"));  // no suffix: .html is added
        QSignalSpy exported(m_browser.get(), &RunBrowser::reportExported);
        m_browser->reportAction()->trigger();
        QCOMPARE(exported.size(), 1);
        const QString path = m_answer + QStringLiteral(".html");
        QCOMPARE(exported.first().at(0).toString(), path);
        QVERIFY2(exported.first().at(1).toBool(), qPrintable(exported.first().at(2).toString()));
        QCOMPARE(m_asked.value(1).section(QLatin1Char('/'), -1), QStringLiteral("run-%1.html").arg(m_a));
        QVERIFY2(m_browser->statusText().contains(QStringLiteral("shared.html")), qPrintable(m_browser->statusText()));
        const QByteArray page = readAll(path);
        QVERIFY(page.startsWith("<!DOCTYPE html>"));
        QVERIFY(page.contains("first &lt;b&gt;bold&lt;/b&gt; &amp; co"));
        QVERIFY(!page.contains("<b>bold</b>"));
        for (const char *section : {"id=\"preset\"", "id=\"curves\"", "id=\"provenance\"", "id=\"trainyard-data\""})
            QVERIFY2(page.contains(section), section);
        // The fixture's 30 train/loss rows are in the data.
        QVERIFY(page.contains("\"name\":\"train/loss\",\"points\":30"));
    }

    void aSweepsReportHasItsTrials()
    {
        NewSweep spec;
        spec.name = QStringLiteral("lr search");
        spec.preset = presetToJson(tytest::tinyPreset());
        spec.metric = QStringLiteral("val/accuracy");
        spec.maximize = true;
        spec.trials = QJsonArray{QJsonObject{{QStringLiteral("index"), 0}, {QStringLiteral("set"), QJsonArray{QStringLiteral("opt.lr=0.125")}}},
                                 QJsonObject{{QStringLiteral("index"), 1}, {QStringLiteral("set"), QJsonArray{QStringLiteral("opt.lr=0.5")}}}};
        const qint64 sweep = m_f->db->createSweep(spec).value();
        const QString path = m_f->dir.filePath(QStringLiteral("sweep.html"));
        QVERIFY(m_browser->exportSweepReport(sweep, path));
        const QByteArray page = readAll(path);
        QVERIFY(page.contains("id=\"trials\""));
        QVERIFY(page.contains("<th>opt.lr</th>"));
        QVERIFY(page.contains(">0.125</td>") && page.contains(">0.5</td>"));
        QVERIFY(page.contains("lr search"));
    }

    void failuresWriteNothing()
    {
        QSignalSpy exported(m_browser.get(), &RunBrowser::reportExported);
        const QString path = m_f->dir.filePath(QStringLiteral("none.html"));
        QVERIFY(!m_browser->exportReport(999, path));
        QVERIFY(!QFileInfo::exists(path));
        QVERIFY2(exported.last().at(2).toString().contains(QStringLiteral("999")), qPrintable(exported.last().at(2).toString()));
        const QString unwritable = m_f->dir.filePath(QStringLiteral("missing-folder/report.html"));
        QVERIFY(!m_browser->exportReport(m_a, unwritable));
        QVERIFY(!QFileInfo::exists(unwritable));
        QVERIFY2(m_browser->statusText().contains(unwritable), qPrintable(m_browser->statusText()));
    }

private:
    std::unique_ptr<RunsFixture> m_f;
    std::unique_ptr<RunBrowser> m_browser;
    qint64 m_a = 0, m_b = 0;
    QString m_answer;
    QStringList m_asked;
};

TY_TEST_CLASS(TestRunBrowserReport)
#include "test_run_browser_report.moc"
