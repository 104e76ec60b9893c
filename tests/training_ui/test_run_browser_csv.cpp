// RunBrowser's "Export Metrics as CSV…" on a database fixture: triggered from the table's context menu on two of
// three selected runs with the file dialog replaced, it writes exactly the rows the database holds for those runs
// (by ascending id) and the very bytes `trainyard-cli runs metrics A B --csv` prints; the action follows the
// selection; a file that cannot be written is reported in the status line and a message box, naming the file.

#include "test_suite.h"
#include "runs/run_browser.h"
#include "training_ui_support.h"

#include <QAction>
#include <QFile>
#include <QMenu>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

#include <cmath>

using namespace ty;
using tytest::RunsFixture;

class TestRunBrowserCsv : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_f = std::make_unique<RunsFixture>();
        QVERIFY(m_f->open());
        m_a = m_f->addRun(QStringLiteral("a"), RunStatus::Finished, 20);
        m_b = m_f->addRun(QStringLiteral("b"), RunStatus::Finished, 40);
        m_c = m_f->addRun(QStringLiteral("c"), RunStatus::Stopped, 30);
        m_browser = std::make_unique<RunBrowser>();
        m_browser->setSaveFileChooser([this](const QString &title, const QString &suggestion, const QString &filter) {
            m_asked << title << suggestion << filter;
            return m_answer;
        });
        QVERIFY(m_browser->openDatabase(m_f->path).ok());
        m_browser->resize(900, 700);
    }

    void cleanup()
    {
        m_browser.reset();
        m_f.reset();
        m_asked.clear();
    }

    void actionFollowsTheSelection()
    {
        QVERIFY(!exportAction()->isEnabled());
        QVERIFY(!m_browser->metricsCsvButton()->isEnabled());
        m_browser->selectRuns({m_b});
        QVERIFY(exportAction()->isEnabled());
        m_browser->selectRuns({m_a, m_b, m_c});
        QVERIFY(exportAction()->isEnabled());
        QVERIFY(m_browser->metricsCsvButton()->isEnabled());
    }

    void exportsTheSelectedRunsLikeTheCli()
    {
        m_browser->selectRuns({m_c, m_a});
        QCOMPARE(m_browser->selectedRunIds(), (QList<qint64>{m_c, m_a}));  // newest first, as the table shows them
        m_answer = m_f->dir.filePath(QStringLiteral("chosen"));  // no suffix: .csv is added
        QSignalSpy exported(m_browser.get(), &RunBrowser::metricsExported);
        exportAction()->trigger();
        QVERIFY(exported.wait(10000));
        const QString path = m_answer + QStringLiteral(".csv");
        QCOMPARE(exported.first().at(0).toString(), path);
        QVERIFY2(exported.first().at(1).toBool(), qPrintable(exported.first().at(3).toString()));
        QCOMPARE(m_asked.value(1).section(QLatin1Char('/'), -1), QStringLiteral("runs-%1-%2.csv").arg(m_a).arg(m_c));
        QVERIFY(m_asked.value(2).contains(QStringLiteral("*.csv")));
        QVERIFY2(m_browser->statusText().contains(path), qPrintable(m_browser->statusText()));

        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        const QStringList lines = QString::fromUtf8(bytes).split(QLatin1Char('\n'));
        QCOMPARE(lines.first(), QStringLiteral("run,uuid,name,step,epoch,time,value"));
        QCOMPARE(lines.last(), QString());  // every line ends with a line feed
        // The rows RunDatabase holds, run by run in ascending id.
        int at = 1;
        for (const qint64 id : {m_a, m_c}) {
            const QString uuid = m_f->db->run(id).value().uuid;
            QVERIFY(!uuid.isEmpty());
            const QList<MetricPoint> rows = m_f->db->metrics(id).value();
            QVERIFY(rows.size() >= 20);
            for (const MetricPoint &m : rows) {
                const QStringList fields = lines.value(at++).split(QLatin1Char(','));
                QCOMPARE(fields.size(), 7);
                QCOMPARE(fields.at(0).toLongLong(), id);
                QCOMPARE(fields.at(1), uuid);
                QCOMPARE(fields.at(2), m.name);
                QCOMPARE(fields.at(3).toLongLong(), m.step);
                QCOMPARE(fields.at(4).toInt(), m.epoch);
                QVERIFY(std::abs(fields.at(5).toDouble() - m.time) <= 0.0005 + 1e-12);
                QCOMPARE(fields.at(6).toDouble(), m.value);  // 1/step and step/1000 are no floats: exact doubles
            }
        }
        QCOMPARE(at, lines.size() - 1);
        QCOMPARE(exported.first().at(2).toLongLong(), qint64(at - 1));

        QProcess cli;
        cli.start(tytest::workerPath(), {QStringLiteral("runs"), QStringLiteral("metrics"), QString::number(m_a), QString::number(m_c),
                                         QStringLiteral("--csv"), QStringLiteral("--db"), m_f->path});
        QVERIFY(cli.waitForFinished(30000));
        QCOMPARE(cli.exitCode(), 0);
        QCOMPARE(bytes, cli.readAllStandardOutput());
    }

    void unwritableFileIsReported()
    {
        m_browser->selectRuns({m_b});
        m_answer = m_f->dir.filePath(QStringLiteral("no such folder/metrics.csv"));
        QSignalSpy exported(m_browser.get(), &RunBrowser::metricsExported);
        m_browser->metricsCsvButton()->click();
        QVERIFY(exported.wait(10000));
        QVERIFY(!exported.first().at(1).toBool());
        QVERIFY2(m_browser->statusText().contains(m_answer), qPrintable(m_browser->statusText()));
        auto *box = m_browser->findChild<QMessageBox *>();
        QVERIFY(box);
        QVERIFY(box->isVisible());
        QVERIFY2(box->text().contains(m_answer), qPrintable(box->text()));
        QVERIFY(!QFile::exists(m_answer));
        QVERIFY(m_browser->metricsCsvButton()->isEnabled());  // ready for another try
    }

    void cancelledDialogWritesNothing()
    {
        m_browser->selectRuns({m_b});
        m_answer.clear();
        QSignalSpy exported(m_browser.get(), &RunBrowser::metricsExported);
        m_browser->metricsCsvButton()->click();
        QCOMPARE(m_asked.size(), 3);
        QVERIFY(!m_browser->isExportingMetrics());
        QVERIFY(!exported.wait(200));
    }

private:
    QAction *exportAction()
    {
        QMenu *menu = m_browser->createContextMenu(m_browser.get());
        menu->deleteLater();
        auto *action = menu->findChild<QAction *>(QStringLiteral("export-metrics-csv"));
        if (!action)
            qFatal("no export-metrics-csv action in the context menu");
        return action;
    }

    std::unique_ptr<RunsFixture> m_f;
    std::unique_ptr<RunBrowser> m_browser;
    qint64 m_a = 0, m_b = 0, m_c = 0;
    QString m_answer;
    QStringList m_asked;
};

TY_TEST_CLASS(TestRunBrowserCsv)
#include "test_run_browser_csv.moc"
