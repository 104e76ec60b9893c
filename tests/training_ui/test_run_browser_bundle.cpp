// RunBrowser's run bundles on database fixtures: "Export Runs as Bundle…" (context menu, file dialog replaced) follows the
// selection (refused for a running run, naming it) and writes a bundle that the core import turns into a new
// database with the same runs by uuid, the same metric rows and the checkpoint file; importBundle merges a bundle
// into another database, selects its runs and names them by id (then "already here" on a second import); a bundle
// with one byte flipped, a running run and a changed checkpoint are refused, naming the file or run, changing nothing.

#include "test_suite.h"
#include "runs/run_browser.h"
#include "training_ui_support.h"

#include "run_bundle_export.h"
#include "run_bundle_import.h"
#include "run_writer.h"

#include <QAction>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSignalSpy>
#include <QtTest>

#include <algorithm>

using namespace ty;
using tytest::RunsFixture;

namespace {

QList<qint64> sorted(QList<qint64> ids)
{
    std::sort(ids.begin(), ids.end());
    return ids;
}

int runCount(RunDatabase &db)
{
    RunSummaryQuery all;
    all.limit = 1000;
    return int(db.runSummaries(all).value().size());
}

} // namespace

class TestRunBrowserBundle : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_f = std::make_unique<RunsFixture>();
        QVERIFY(m_f->open());
        m_a = m_f->addRun(QStringLiteral("a"), RunStatus::Finished, 20);
        m_b = runWithCheckpoint(QStringLiteral("b"), 40);
        m_running = m_f->addRun(QStringLiteral("still training"), RunStatus::Running, 10);
        QVERIFY(m_a && m_b && m_running);
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
        m_browser->selectRuns({m_a, m_b});
        QVERIFY(exportAction()->isEnabled());
        m_browser->selectRuns({m_a, m_running});  // only ended runs travel: disabled, and the tooltip says why
        QVERIFY(!exportAction()->isEnabled());
        QVERIFY2(m_browser->bundleAction()->toolTip().contains(QStringLiteral("#%1 is running").arg(m_running)),
                 qPrintable(m_browser->bundleAction()->toolTip()));
    }

    void exportedRunsImportIntoANewDatabase()
    {
        m_browser->selectRuns({m_b, m_a});
        m_answer = m_f->dir.filePath(QStringLiteral("moved"));  // no suffix: .tybundle is added
        QSignalSpy exported(m_browser.get(), &RunBrowser::bundleExported);
        exportAction()->trigger();
        QVERIFY(exported.wait(20000));
        const QString bundle = m_answer + QStringLiteral(".tybundle");
        QCOMPARE(exported.first().at(0).toString(), bundle);
        QVERIFY2(exported.first().at(1).toBool(), qPrintable(exported.first().at(2).toString()));
        QCOMPARE(m_asked.value(1).section(QLatin1Char('/'), -1), QStringLiteral("runs-%1-%2.tybundle").arg(m_a).arg(m_b));
        QVERIFY(m_asked.value(2).contains(QStringLiteral("*.tybundle")));
        // The status line: the file, the runs, their rows, the checkpoint and the size.
        const qint64 rows = m_f->db->metrics(m_a).value().size() + m_f->db->metrics(m_b).value().size();
        const QString status = m_browser->statusText();
        for (const QString &part : {bundle, QStringLiteral("2 runs"), QString::number(rows) + QStringLiteral(" metric rows"),
                                    QStringLiteral("1 checkpoint"), QLocale().formattedDataSize(QFileInfo(bundle).size())})
            QVERIFY2(status.contains(part), qPrintable(part + QStringLiteral(" not in: ") + status));

        // The core import into a new database: the same runs by uuid, the same rows, the checkpoint file.
        const QString other = m_f->dir.filePath(QStringLiteral("other.sqlite"));
        const Result<RunBundleImportReport> report = importRunBundle(other, bundle);
        QVERIFY2(report.ok(), qPrintable(report.ok() ? QString() : report.error().toString()));
        QCOMPARE(report.value().runs.size(), 2);
        auto db = RunDatabase::open(other);
        QVERIFY(db.ok());
        QCOMPARE(runCount(*db.value()), 2);
        for (const RunBundleImportReport::Item &item : report.value().runs) {
            const qint64 source = item.bundleId;
            QVERIFY(source == m_a || source == m_b);
            QCOMPARE(item.uuid, m_f->db->run(source).value().uuid);
            QCOMPARE(db.value()->run(item.id).value().uuid, item.uuid);
            QCOMPARE(db.value()->metrics(item.id).value().size(), m_f->db->metrics(source).value().size());
            QCOMPARE(db.value()->checkpoints(item.id).value().size(), source == m_b ? 1 : 0);
        }
        const qint64 movedB = report.value().runs.at(0).bundleId == m_b ? report.value().runs.at(0).id : report.value().runs.at(1).id;
        QFile checkpoint(db.value()->checkpoints(movedB).value().first().path);
        QVERIFY(checkpoint.open(QIODevice::ReadOnly));
        QCOMPARE(checkpoint.readAll(), m_checkpointBytes);
    }

    void importSelectsTheRunsAndNamesThem()
    {
        const QString bundle = exportedBundle({m_a, m_b});
        QVERIFY(!bundle.isEmpty());
        RunsFixture target;  // a database with a run of its own, whose id the bundle's first run also has
        QVERIFY(target.open());
        const qint64 own = target.addRun(QStringLiteral("own"), RunStatus::Finished, 5);
        QCOMPARE(own, m_a);
        RunBrowser browser;
        QVERIFY(browser.openDatabase(target.path).ok());
        QSignalSpy imported(&browser, &RunBrowser::bundleImported);
        QVERIFY(browser.importBundle(bundle));
        QVERIFY(browser.isImportingBundle());
        QVERIFY(imported.wait(20000));
        QVERIFY2(imported.first().at(1).toBool(), qPrintable(imported.first().at(3).toString()));
        const QList<qint64> ids = imported.first().at(2).value<QList<qint64>>();
        QCOMPARE(ids.size(), 2);
        QVERIFY(!ids.contains(own));  // renumbered: the id was taken
        QCOMPARE(runCount(*target.db), 3);
        QCOMPARE(sorted(browser.selectedRunIds()), sorted(ids));
        const QStringList names{QStringLiteral("a"), QStringLiteral("b")};
        for (qint64 id : ids)
            QVERIFY(names.contains(target.db->run(id).value().name));
        QString status = browser.statusText();
        QVERIFY2(status.contains(bundle) && status.contains(QStringLiteral("2 runs added")), qPrintable(status));
        for (qint64 id : ids)
            QVERIFY2(status.contains(QStringLiteral("#%1").arg(id)), qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("(#%1 in the bundle)").arg(m_a)), qPrintable(status));

        // Again: nothing added, both named as already here, and selected.
        browser.selectRuns({own});
        imported.clear();
        QVERIFY(browser.importBundle(bundle));
        QVERIFY(imported.wait(20000));
        QVERIFY(imported.first().at(1).toBool());
        QCOMPARE(sorted(imported.first().at(2).value<QList<qint64>>()), sorted(ids));
        QCOMPARE(runCount(*target.db), 3);
        QCOMPARE(sorted(browser.selectedRunIds()), sorted(ids));
        status = browser.statusText();
        QVERIFY2(status.contains(QStringLiteral("2 runs already here")) && !status.contains(QStringLiteral("added")), qPrintable(status));
    }

    void damagedBundleIsRefusedChangingNothing()
    {
        const QString bundle = exportedBundle({m_a});
        QVERIFY(!bundle.isEmpty());
        QFile file(bundle);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.seek(file.size() / 2));
        char byte = 0;
        QVERIFY(file.getChar(&byte));
        QVERIFY(file.seek(file.size() / 2));
        QVERIFY(file.putChar(char(byte ^ 0x01)));
        file.close();

        RunsFixture target;
        QVERIFY(target.open());
        target.addRun(QStringLiteral("own"), RunStatus::Finished, 5);
        const QString folders = target.path + QStringLiteral("-runs");
        const QStringList foldersBefore = QDir(folders).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        RunBrowser browser;
        QVERIFY(browser.openDatabase(target.path).ok());
        QSignalSpy imported(&browser, &RunBrowser::bundleImported);
        QVERIFY(browser.importBundle(bundle, true));
        QVERIFY(imported.wait(20000));
        QVERIFY(!imported.first().at(1).toBool());
        QVERIFY(imported.first().at(2).value<QList<qint64>>().isEmpty());
        const QString status = browser.statusText();
        QVERIFY2(status.contains(bundle) && status.contains(QStringLiteral("nothing was changed")) && status.contains(QStringLiteral("sha256")),
                 qPrintable(status));
        auto *box = browser.findChild<QMessageBox *>();
        QVERIFY(box && box->isVisible());
        QCOMPARE(box->icon(), QMessageBox::Warning);
        QVERIFY2(box->text().contains(bundle), qPrintable(box->text()));
        QCOMPARE(runCount(*target.db), 1);
        QCOMPARE(QDir(folders).entryList(QDir::Dirs | QDir::NoDotAndDotDot), foldersBefore);
        QVERIFY(!browser.isImportingBundle());
    }

    void refusalsNameTheRunOrTheFile()
    {
        // A run still running, asked for directly (the button is disabled then).
        const QString bundle = m_f->dir.filePath(QStringLiteral("refused.tybundle"));
        QSignalSpy exported(m_browser.get(), &RunBrowser::bundleExported);
        QVERIFY(m_browser->exportBundle({m_a, m_running}, bundle));
        QVERIFY(exported.wait(20000));
        QVERIFY(!exported.first().at(1).toBool());
        QVERIFY2(m_browser->statusText().contains(QStringLiteral("run %1 is running").arg(m_running)), qPrintable(m_browser->statusText()));
        QVERIFY(!QFileInfo::exists(bundle));

        // A checkpoint file changed since it was recorded, through the action: the message box names the file.
        QFile checkpoint(m_checkpoint);
        QVERIFY(checkpoint.open(QIODevice::Append));
        checkpoint.write("x");
        checkpoint.close();
        m_browser->selectRuns({m_b});
        m_answer = bundle;
        exported.clear();
        m_browser->bundleAction()->trigger();
        QVERIFY(exported.wait(20000));
        QVERIFY(!exported.first().at(1).toBool());
        QVERIFY2(m_browser->statusText().contains(m_checkpoint), qPrintable(m_browser->statusText()));
        auto *box = m_browser->findChild<QMessageBox *>();
        QVERIFY(box && box->isVisible());
        QVERIFY2(box->text().contains(m_checkpoint), qPrintable(box->text()));
        QVERIFY(!QFileInfo::exists(bundle));
        QVERIFY(m_browser->bundleAction()->isEnabled());  // ready for another try
    }

private:
    // A finished run with `steps` metric rows and one checkpoint file (recorded with its sha256).
    qint64 runWithCheckpoint(const QString &name, int steps)
    {
        const qint64 id = m_f->createRun(name);
        RunWriter writer(m_f->path, id, 3600 * 1000);
        if (!writer.start().ok())
            return 0;
        for (int step = 1; step <= steps; ++step)
            writer.appendMetric({QStringLiteral("train/loss"), step, 1 + (step - 1) / 10, step * 0.01, 1.0 / step});
        const QString folder = m_f->db->run(id).value().folder + QStringLiteral("/checkpoints");
        QDir().mkpath(folder);
        m_checkpoint = folder + QStringLiteral("/step-%1.safetensors").arg(steps);
        m_checkpointBytes = QByteArray("weights of ") + name.toUtf8() + QByteArray(3000, 'w');
        QFile file(m_checkpoint);
        if (!file.open(QIODevice::WriteOnly) || file.write(m_checkpointBytes) != m_checkpointBytes.size())
            return 0;
        file.close();
        writer.recordCheckpoint(CheckpointRecord{steps, steps / 10, m_checkpoint,
                                                 QString::fromLatin1(QCryptographicHash::hash(m_checkpointBytes, QCryptographicHash::Sha256).toHex()), true});
        return writer.finish(RunStatus::Finished).ok() ? id : 0;
    }

    // The runs `ids` exported through the browser (no dialog); empty on failure.
    QString exportedBundle(const QList<qint64> &ids)
    {
        const QString bundle = m_f->dir.filePath(QStringLiteral("runs.tybundle"));
        QSignalSpy exported(m_browser.get(), &RunBrowser::bundleExported);
        if (!m_browser->exportBundle(ids, bundle) || !exported.wait(20000) || !exported.first().at(1).toBool())
            return QString();
        return bundle;
    }

    // The context menu's Export Runs as Bundle… (the browser's action, which the window's File menu shows too).
    QAction *exportAction()
    {
        QMenu *menu = m_browser->createContextMenu(m_browser.get());
        menu->deleteLater();
        for (QAction *action : menu->actions())
            if (action->objectName() == QLatin1String("export-bundle"))
                return action;
        qFatal("no export-bundle action in the context menu");
    }

    std::unique_ptr<RunsFixture> m_f;
    std::unique_ptr<RunBrowser> m_browser;
    qint64 m_a = 0, m_b = 0, m_running = 0;
    QString m_checkpoint;
    QByteArray m_checkpointBytes;
    QString m_answer;
    QStringList m_asked;
};

TY_TEST_CLASS(TestRunBrowserBundle)
#include "test_run_browser_bundle.moc"
