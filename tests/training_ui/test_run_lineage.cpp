// Lineage in the run browser: the "From" column and its tooltip name the run (or weights file) a run started
// from; the line under the actions links to the parent and to the runs fine-tuned from a run; a double click on
// "From", the link and the context menu select the parent (clearing a filter that hides it); `from:#ID` filters.
// "Fine-tune…" makes the fine-tuning preset of a run from its best (else last) checkpoint. Weights imported from
// another tool's file show their import report: its counts in the tooltip and the line, its tensors in the line's
// tooltip (read from the run's record, as the table's rows carry only the counts).

#include "test_suite.h"
#include "preset_format.h"
#include "run_writer.h"
#include "runs/run_browser.h"
#include "runs/runs_filter_proxy_model.h"
#include "runs/runs_table_model.h"
#include "training_ui_support.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

#include <memory>

using namespace ty;
using tytest::RunsFixture;

class TestRunLineage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void fromColumnNamesTheParent();
    void lineageLinksBothWays();
    void contextMenuGoesToTheParent();
    void fineTuneMakesAStagedPreset();
    void fineTuneNeedsACheckpoint();
    void importReportIsShown();

private:
    QString fromText(qint64 id, int role = Qt::DisplayRole) const
    {
        RunsTableModel *model = m_browser->model();
        return model->index(model->rowOfRun(id), RunsTableModel::ParentColumn).data(role).toString();
    }
    void addCheckpoint(qint64 id, qint64 step, bool best);

    std::unique_ptr<RunsFixture> m_f;
    std::unique_ptr<RunBrowser> m_browser;
    qint64 m_base = 0, m_tuned = 0, m_fromFile = 0;
};

void TestRunLineage::init()
{
    m_f = std::make_unique<RunsFixture>();
    QVERIFY(m_f->open());
    m_base = m_f->addRun(QStringLiteral("base"), RunStatus::Finished, 40);
    const QString sha(64, QLatin1Char('a'));
    m_tuned = m_f->createRun(QStringLiteral("tuned"),
                             {{QStringLiteral("init_from"),
                               QJsonObject{{QStringLiteral("run"), m_base}, {QStringLiteral("run_name"), QStringLiteral("base")},
                                           {QStringLiteral("checkpoint"), QStringLiteral("best")},
                                           {QStringLiteral("checkpoint_step"), 40}, {QStringLiteral("sha256"), sha}}}});
    m_fromFile = m_f->createRun(QStringLiteral("pretrained"),
                                {{QStringLiteral("init_from"),
                                  QJsonObject{{QStringLiteral("file"), QStringLiteral("/data/imagenet.safetensors")},
                                              {QStringLiteral("sha256"), QStringLiteral("cd34")},
                                              {QStringLiteral("nodes"), QJsonArray{QStringLiteral("fc1")}}}}});
    m_browser = std::make_unique<RunBrowser>();
    QVERIFY(m_browser->openDatabase(m_f->path).ok());
    m_browser->resize(1000, 700);
}

void TestRunLineage::cleanup()
{
    m_browser.reset();
    m_f.reset();
}

void TestRunLineage::addCheckpoint(qint64 id, qint64 step, bool best)
{
    RunWriter writer(m_f->path, id, 3600 * 1000);
    QVERIFY(writer.start().ok());
    writer.recordCheckpoint({step, 1, QStringLiteral("/nowhere/step-%1.safetensors").arg(step), QStringLiteral("ff"), best});
    QVERIFY(writer.finish(RunStatus::Finished).ok());
    m_browser->refresh();
}

void TestRunLineage::fromColumnNamesTheParent()
{
    QCOMPARE(m_browser->model()->headerData(RunsTableModel::ParentColumn, Qt::Horizontal).toString(), QStringLiteral("From"));
    QCOMPARE(fromText(m_tuned), QStringLiteral("#%1").arg(m_base));
    QCOMPARE(fromText(m_tuned, Qt::ToolTipRole),
             QStringLiteral("Started from run #%1 “base”, checkpoint best (step 40), sha256 %2").arg(m_base).arg(QString(64, QLatin1Char('a'))));
    QCOMPARE(fromText(m_fromFile), QStringLiteral("imagenet.safetensors"));
    QCOMPARE(fromText(m_fromFile, Qt::ToolTipRole),
             QStringLiteral("Started from the weights file /data/imagenet.safetensors, sha256 cd34, nodes fc1"));
    QCOMPARE(fromText(m_base), QString());
    QCOMPARE(m_browser->model()->index(m_browser->model()->rowOfRun(m_tuned), 0).data(RunsTableModel::ParentRunIdRole).toLongLong(), m_base);

    // from:#ID keeps the runs started from that run.
    m_browser->filterField()->setText(QStringLiteral("from:#%1").arg(m_base));
    QCOMPARE(m_browser->proxy()->rowCount(), 1);
    QCOMPARE(m_browser->proxy()->runIdAt(0), m_tuned);
    m_browser->filterField()->setText(QStringLiteral("from:%1").arg(m_tuned));
    QCOMPARE(m_browser->proxy()->rowCount(), 0);
}

void TestRunLineage::lineageLinksBothWays()
{
    m_browser->selectRuns({m_tuned});
    QLabel *lineage = m_browser->lineageLabel();
    QVERIFY(!lineage->isHidden());
    QVERIFY2(lineage->text().contains(QStringLiteral("<a href=\"run:%1\">run #%1 “base”</a>").arg(m_base)), qPrintable(lineage->text()));
    QVERIFY(lineage->text().contains(QStringLiteral("sha256 aaaaaaaaaaaa…")));  // shortened here, whole in the tooltip

    // The link selects the parent, even when the filter hides it.
    m_browser->filterField()->setText(QStringLiteral("tuned"));
    QCOMPARE(m_browser->proxy()->rowCount(), 1);
    Q_EMIT lineage->linkActivated(QStringLiteral("run:%1").arg(m_base));
    QCOMPARE(m_browser->selectedRunIds(), QList<qint64>{m_base});
    QCOMPARE(m_browser->filterField()->text(), QString());
    // The parent lists what was fine-tuned from it.
    QVERIFY2(lineage->text().contains(QStringLiteral("Fine-tuned into <a href=\"run:%1\">#%1</a>").arg(m_tuned)),
             qPrintable(lineage->text()));

    // Nothing to show for a run without relatives.
    const qint64 lonely = m_f->addRun(QStringLiteral("lonely"), RunStatus::Finished, 5);
    m_browser->refresh();
    m_browser->selectRuns({lonely});
    QVERIFY(lineage->isHidden());

    // A double click on the From cell goes to the parent; elsewhere it does nothing.
    m_browser->selectRuns({m_tuned});
    const int row = m_browser->proxy()->mapFromSource(m_browser->model()->index(m_browser->model()->rowOfRun(m_tuned), 0)).row();
    Q_EMIT m_browser->view()->doubleClicked(m_browser->proxy()->index(row, RunsTableModel::NameColumn));
    QCOMPARE(m_browser->selectedRunIds(), QList<qint64>{m_tuned});
    Q_EMIT m_browser->view()->doubleClicked(m_browser->proxy()->index(row, RunsTableModel::ParentColumn));
    QCOMPARE(m_browser->selectedRunIds(), QList<qint64>{m_base});
}

void TestRunLineage::contextMenuGoesToTheParent()
{
    m_browser->selectRuns({m_tuned});
    std::unique_ptr<QMenu> menu(m_browser->createContextMenu(nullptr));
    QStringList texts;
    for (QAction *action : menu->actions())
        if (!action->isSeparator())
            texts << action->text();
    QVERIFY2(texts.contains(QStringLiteral("Fine-tune from This Run…")), qPrintable(texts.join(QLatin1Char('|'))));
    QVERIFY(texts.contains(QStringLiteral("Open Preset")));
    QAction *toParent = menu->findChild<QAction *>(QStringLiteral("go-to-parent"));
    QVERIFY(toParent);
    QCOMPARE(toParent->text(), QStringLiteral("Go to Parent Run #%1").arg(m_base));
    toParent->trigger();
    QCOMPARE(m_browser->selectedRunIds(), QList<qint64>{m_base});
    // The parent has none.
    menu.reset(m_browser->createContextMenu(nullptr));
    QVERIFY(!menu->findChild<QAction *>(QStringLiteral("go-to-parent")));
}

void TestRunLineage::fineTuneMakesAStagedPreset()
{
    addCheckpoint(m_base, 20, false);
    QSignalSpy requested(m_browser.get(), &RunBrowser::fineTuneRequested);
    m_browser->selectRuns({m_base});
    QVERIFY(m_browser->fineTuneButton()->isEnabled());
    // From the context menu: the last checkpoint (there is no best one yet).
    std::unique_ptr<QMenu> menu(m_browser->createContextMenu(nullptr));
    menu->findChild<QAction *>(QStringLiteral("fine-tune"))->trigger();
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested.at(0).at(1).toLongLong(), m_base);
    Preset preset = requested.at(0).at(0).value<Preset>();
    QCOMPARE(preset.training.value(QStringLiteral("init_from")).toObject(),
             (QJsonObject{{QStringLiteral("run"), m_base}, {QStringLiteral("checkpoint"), QStringLiteral("last")}}));

    // With a best checkpoint, from it. The tiny network: fc1 -> act -> fc2 (the head) -> loss; SGD at 0.1.
    addCheckpoint(m_base, 40, true);
    m_browser->fineTuneButton()->click();
    QCOMPARE(requested.size(), 2);
    preset = requested.at(1).at(0).value<Preset>();
    const QJsonObject expected = QJsonDocument::fromJson(QStringLiteral(R"({
        "batch_size": 32, "seed": 1, "device": "cpu", "deterministic": true, "threads": 1, "log_every": 4,
        "init_from": {"run": %1, "checkpoint": "best"},
        "stages": [{"name": "head", "epochs": 1, "freeze": ["fc1"]},
                   {"name": "all", "epochs": 2, "unfreeze": ["fc1"], "set": {"opt.lr": 0.01}}]})").arg(m_base).toUtf8()).object();
    QCOMPARE(QJsonDocument(preset.training).toJson(), QJsonDocument(expected).toJson());
    QCOMPARE(preset.name, QStringLiteral("base (fine-tuned from #%1)").arg(m_base));
    QVERIFY(preset.sourcePath.isEmpty());
    QCOMPARE(preset.graph, tytest::tinyPreset().graph);
    QCOMPARE(m_browser->statusText(), QString());
    QVERIFY(preset.description.contains(QStringLiteral("best checkpoint of run #%1").arg(m_base)));
}

void TestRunLineage::fineTuneNeedsACheckpoint()
{
    QSignalSpy requested(m_browser.get(), &RunBrowser::fineTuneRequested);
    const Status status = m_browser->requestFineTune(m_base);
    QVERIFY(!status.ok());
    QCOMPARE(status.error().message, QStringLiteral("Cannot fine-tune from run #%1: it has no checkpoint yet").arg(m_base));
    QCOMPARE(m_browser->statusText(), status.error().message);
    QCOMPARE(requested.size(), 0);
    // A queued run cannot be fine-tuned from the buttons.
    m_browser->selectRuns({m_tuned});
    QVERIFY(!m_browser->fineTuneButton()->isEnabled());
}

void TestRunLineage::importReportIsShown()
{
    const QJsonObject report{
        {QStringLiteral("file"), QStringLiteral("/models/mlp.safetensors")}, {QStringLiteral("map"), QStringLiteral("sequential")},
        {QStringLiteral("strict"), true},
        {QStringLiteral("counts"), QJsonObject{{QStringLiteral("copied"), 1}, {QStringLiteral("skipped"), 1},
                                               {QStringLiteral("missing"), 0}, {QStringLiteral("mismatched"), 0}}},
        {QStringLiteral("copied"), QJsonArray{QJsonObject{{QStringLiteral("tensor"), QStringLiteral("fc1.weight")}, {QStringLiteral("shape"), QJsonArray{16, 8}},
                                                          {QStringLiteral("dtype"), QStringLiteral("F32")}, {QStringLiteral("file_tensor"), QStringLiteral("1.weight")},
                                                          {QStringLiteral("file_shape"), QJsonArray{16, 8}}, {QStringLiteral("file_dtype"), QStringLiteral("F16")}}}},
        {QStringLiteral("skipped"), QJsonArray{QJsonObject{{QStringLiteral("file_tensor"), QStringLiteral("2.num_batches_tracked")},
                                                           {QStringLiteral("file_shape"), QJsonArray{}}, {QStringLiteral("file_dtype"), QStringLiteral("I64")},
                                                           {QStringLiteral("reason"), QStringLiteral("batch norm's count of batches, not needed")}}}},
        {QStringLiteral("missing"), QJsonArray{}}, {QStringLiteral("mismatched"), QJsonArray{}}};
    const qint64 imported = m_f->createRun(QStringLiteral("imported"),
                                           {{QStringLiteral("init_from"),
                                             QJsonObject{{QStringLiteral("file"), QStringLiteral("/models/mlp.safetensors")},
                                                         {QStringLiteral("sha256"), QStringLiteral("ef56")}, {QStringLiteral("map"), QStringLiteral("sequential")},
                                                         {QStringLiteral("import"), report}}}});
    m_browser->refresh();
    const QString summary = QStringLiteral("Imported with map sequential (strict): 1 copied, 1 skipped, 0 missing, 0 mismatched");
    QCOMPARE(fromText(imported), QStringLiteral("mlp.safetensors"));
    QCOMPARE(fromText(imported, Qt::ToolTipRole), QStringLiteral("Started from the weights file /models/mlp.safetensors, sha256 ef56. ") + summary);
    // The table's row has the counts only.
    const QJsonObject rowParent = m_browser->model()->runAt(m_browser->model()->rowOfRun(imported)).parent;
    QVERIFY(rowParent.value(QStringLiteral("import")).toObject().contains(QStringLiteral("counts")));
    QVERIFY(!rowParent.value(QStringLiteral("import")).toObject().contains(QStringLiteral("copied")));

    m_browser->selectRuns({imported});
    QLabel *lineage = m_browser->lineageLabel();
    QVERIFY2(lineage->text().contains(summary), qPrintable(lineage->text()));
    QCOMPARE(lineage->toolTip(), QStringLiteral("skipped 2.num_batches_tracked I64 []: batch norm's count of batches, not needed\n"
                                                "copied fc1.weight [16, 8] ← 1.weight F16 [16, 8]"));
    m_browser->selectRuns({m_fromFile});
    QCOMPARE(lineage->toolTip(), QString());
}

TY_TEST_CLASS(TestRunLineage)
#include "test_run_lineage.moc"
