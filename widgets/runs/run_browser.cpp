#include "run_browser.h"

#include "preset_diff_view.h"
#include "run_comparison_view.h"
#include "run_database.h"
#include "run_database_watcher.h"
#include "runs_filter_proxy_model.h"
#include "runs_table_model.h"

#include "common/flow_layout.h"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <tuple>

namespace ty {

namespace {

struct StatusChoice {
    const char *label;
    QList<RunStatus> statuses;
};

QList<StatusChoice> statusChoices()
{
    QList<StatusChoice> choices{{QT_TRANSLATE_NOOP("RunBrowser", "All statuses"), {}},
                                {QT_TRANSLATE_NOOP("RunBrowser", "Active"), {RunStatus::Queued, RunStatus::Running}},
                                {QT_TRANSLATE_NOOP("RunBrowser", "Resumable"),
                                 {RunStatus::Interrupted, RunStatus::Stopped, RunStatus::Failed}}};
    return choices;
}

} // namespace

RunBrowser::RunBrowser(QWidget *parent)
    : QWidget(parent), m_model(new RunsTableModel(this)), m_proxy(new RunsFilterProxyModel(this)), m_pageLoader(new QTimer(this)),
      m_exportThread(std::make_unique<QThreadPool>())
{
    m_exportThread->setMaxThreadCount(1);
    m_proxy->setRunsModel(m_model);
    m_confirm = [this](const QString &question) {
        return QMessageBox::question(this, tr("Delete runs"), question, QMessageBox::Yes | QMessageBox::Cancel,
                                     QMessageBox::Cancel) == QMessageBox::Yes;
    };
    m_chooseSaveFile = [this](const QString &title, const QString &suggestion, const QString &filter) {
        return QFileDialog::getSaveFileName(this, title, suggestion, filter);
    };
    buildUi();
    connect(m_model, &RunsTableModel::tagsChanged, this, &RunBrowser::updateTagChoices);
    connect(m_model, &RunsTableModel::errorOccurred, this, &RunBrowser::setStatus);
    connect(m_model, &RunsTableModel::loadErrorChanged, this, &RunBrowser::showLoadProblem);
    connect(m_model, &RunsTableModel::modelReset, this, [this] {
        widenIdColumn(0, m_model->rowCount() - 1);
        selectRuns(m_pendingSelection.isEmpty() ? m_lastSelection : m_pendingSelection);
    });
    // New runs (a refresh, a page, a teammate's T113 after this machine's 1 and 2): the ID column fits them.
    connect(m_model, &RunsTableModel::rowsInserted, this, [this](const QModelIndex &, int first, int last) {
        widenIdColumn(first, last);
        if (!m_pendingSelection.isEmpty())
            selectRuns(m_pendingSelection);
    });
    m_pageLoader->setSingleShot(true);
    m_pageLoader->setInterval(0);
    connect(m_pageLoader, &QTimer::timeout, this, &RunBrowser::loadNextPage);
}

RunBrowser::~RunBrowser()
{
    m_exportThread->waitForDone();  // an export or import finishes its file or transaction; its report is dropped
    m_model->setDatabase(nullptr);  // the model must not outlive its database's use
}

void RunBrowser::buildUi()
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    m_loadProblem = new QLabel(this);
    m_loadProblem->setWordWrap(true);
    m_loadProblem->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_loadProblem->setContentsMargins(8, 6, 8, 6);
    m_loadProblem->setStyleSheet(QStringLiteral("QLabel { background: #fdecea; color: #611a15; border: 1px solid #e57373; }"));
    m_loadProblem->setVisible(false);
    layout->addWidget(m_loadProblem);

    auto *filters = new QHBoxLayout;
    m_sourceChoice = new QComboBox(this);
    m_sourceChoice->setObjectName(QStringLiteral("run-source"));
    m_sourceChoice->addItems({tr("This machine"), tr("Team"), tr("Both")});
    m_sourceChoice->setToolTip(tr("The runs of this machine's run database, the team store's (Training ▸ Team Store…), "
                                  "or both in one list (a teammate's run read only, its id marked T)"));
    m_sourceChoice->setVisible(false);
    filters->addWidget(m_sourceChoice);
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter runs: name, preset, tag, status, #id, notes, from:#id"));
    m_filter->setClearButtonEnabled(true);
    m_statusChoice = new QComboBox(this);
    for (const StatusChoice &choice : statusChoices())
        m_statusChoice->addItem(tr(choice.label));
    for (RunStatus status : allRunStatuses())
        m_statusChoice->addItem(runStatusName(status));
    m_tagChoice = new QComboBox(this);
    m_tagChoice->addItem(tr("All tags"));
    filters->addWidget(m_filter, 1);
    filters->addWidget(m_statusChoice);
    filters->addWidget(m_tagChoice);
    layout->addLayout(filters);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &RunsFilterProxyModel::setTextFilter);
    connect(m_statusChoice, &QComboBox::currentIndexChanged, this, &RunBrowser::applyStatusFilter);
    connect(m_tagChoice, &QComboBox::currentIndexChanged, this,
            [this](int index) { m_proxy->setTagFilter(index <= 0 ? QString() : m_tagChoice->itemText(index)); });

    auto *splitter = new QSplitter(Qt::Vertical, this);
    m_view = new QTableView(splitter);
    m_view->setModel(m_proxy);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(RunsTableModel::IdColumn, Qt::DescendingOrder);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setHighlightSections(false);
    m_view->horizontalHeader()->setSectionsMovable(true);
    m_view->setColumnHidden(RunsTableModel::EndedColumn, true);
    m_view->setColumnHidden(RunsTableModel::MachineColumn, true);  // shown in the Team and Both views
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    // The name is edited in its cell (F2 or a double click; Escape cancels); the model refuses an empty name.
    m_view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunBrowser::onSelectionChanged);
    connect(m_view, &QTableView::customContextMenuRequested, this, &RunBrowser::showContextMenu);
    connect(m_view, &QTableView::doubleClicked, this, &RunBrowser::activateCell);

    auto *lower = new QWidget(splitter);
    auto *lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QWidget(lower);
    buildActions(bar);
    lowerLayout->addWidget(bar);
    m_lineage = new QLabel(lower);
    m_lineage->setWordWrap(true);
    m_lineage->setTextFormat(Qt::RichText);
    m_lineage->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    m_lineage->setVisible(false);
    connect(m_lineage, &QLabel::linkActivated, this, [this](const QString &link) {
        if (link.startsWith(QStringLiteral("run:")))
            showRun(link.mid(4).toLongLong());
    });
    lowerLayout->addWidget(m_lineage);
    m_details = new QTabWidget(lower);
    m_comparison = new RunComparisonView(m_details);
    m_details->addTab(m_comparison, tr("Compare"));
    auto *notesPage = new QWidget(m_details);
    auto *notesLayout = new QFormLayout(notesPage);
    m_hypothesis = new QLabel(notesPage);
    m_hypothesis->setWordWrap(true);
    m_hypothesis->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_hypothesis->setToolTip(tr("The preset's \"hypothesis\": what the experiment is expected to show"));
    notesLayout->addRow(tr("Hypothesis"), m_hypothesis);
    m_notes = new QPlainTextEdit(notesPage);
    m_notes->setPlaceholderText(tr("Notes about the selected run"));
    m_tags = new QLineEdit(notesPage);
    m_tags->setPlaceholderText(tr("tags, separated by commas"));
    m_saveNotes = new QPushButton(tr("Save notes and tags"), notesPage);
    notesLayout->addRow(tr("Notes"), m_notes);
    notesLayout->addRow(tr("Tags"), m_tags);
    notesLayout->addRow(QString(), m_saveNotes);
    m_details->addTab(notesPage, tr("Notes && tags"));
    m_diff = new PresetDiffView(m_details);
    m_details->addTab(m_diff, tr("Preset diff"));
    lowerLayout->addWidget(m_details, 1);
    connect(m_saveNotes, &QPushButton::clicked, this, [this] {
        const QList<qint64> ids = selectedRunIds();
        if (ids.size() == 1)
            saveNotesAndTags(ids.first(), m_notes->toPlainText(), m_tags->text());
    });

    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({300, 200});
    layout->addWidget(splitter, 1);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    updateActions();
}

void RunBrowser::buildActions(QWidget *bar)
{
    // Wraps onto a second line in a narrow window rather than clipping the labels.
    auto *row = new FlowLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    auto add = [&](const QString &text, const QString &tip) {
        auto *button = new QPushButton(text, bar);
        button->setToolTip(tip);
        row->addWidget(button);
        return button;
    };
    m_pin = add(tr("Pin baseline"), tr("Compare every other run with the selected one"));
    m_open = add(tr("Open preset"), tr("Open the selected run's preset on the canvas"));
    m_fineTune = add(tr("Fine-tune…"), tr("A new preset that starts from the selected run's weights (its best checkpoint, "
                                          "else its last): its head alone first, then every layer at a tenth of the "
                                          "learning rate"));
    m_resume = add(tr("Resume"), tr("Continue an interrupted, stopped or failed run from its last checkpoint"));
    m_evaluate = add(tr("Evaluate"), tr("Confusion matrix, per-class scores and mistakes of the selected run (with a second "
                                        "selected run: side by side)"));
    m_export = add(tr("Export…"), tr("Write the selected run's trained model as ONNX or its weights as safetensors"));
    m_metricsCsv = add(tr("Export CSV…"), tr("Write every metric row of the selected runs into one CSV file in long form "
                                             "(run, uuid, name, step, epoch, time, value), as `trainyard-cli runs metrics "
                                             "ID... --csv` prints them"));
    m_diffButton = add(tr("Diff"), tr("What differs between the presets of two runs"));
    m_rename = add(tr("Rename"), tr("Edit the selected run's name in its cell (F2; Escape cancels)"));
    m_delete = add(tr("Delete…"), tr("Delete the selected runs, their metrics and their files"));
    connect(m_pin, &QPushButton::clicked, this, [this] {
        const QList<qint64> ids = selectedRunIds();
        setBaseline(ids.size() == 1 && ids.first() != m_baseline ? ids.first() : 0);
    });
    connect(m_open, &QPushButton::clicked, this, [this] { requestOpenPreset(selectedRunIds().value(0)); });
    connect(m_fineTune, &QPushButton::clicked, this, [this] { requestFineTune(selectedRunIds().value(0)); });
    connect(m_resume, &QPushButton::clicked, this, [this] {
        const qint64 id = selectedRunIds().value(0);
        const int row = m_model->rowOfRun(id);
        if (row >= 0 && m_model->runAt(row).status == RunStatus::Running)
            requestStop(id);
        else
            requestResume(id);
    });
    connect(m_evaluate, &QPushButton::clicked, this, [this] {
        const QList<qint64> ids = selectedRunIds();
        if (!ids.isEmpty())
            Q_EMIT evaluateRequested(ids.first(), ids.value(1, m_baseline != ids.first() ? m_baseline : 0));
    });
    connect(m_export, &QPushButton::clicked, this, &RunBrowser::exportInteractively);
    connect(m_metricsCsv, &QPushButton::clicked, this, &RunBrowser::exportMetricsCsvInteractively);
    // No button: the row would need a third line at 1280x720. Its tooltip follows the selection (updateActions).
    m_bundleAction = new QAction(tr("Export Runs as Bundle…"), this);
    m_bundleAction->setObjectName(QStringLiteral("export-bundle"));
    connect(m_bundleAction, &QAction::triggered, this, &RunBrowser::exportBundleInteractively);
    m_reportAction = new QAction(tr("Export Report…"), this);
    m_reportAction->setObjectName(QStringLiteral("export-report"));
    m_reportAction->setToolTip(tr("Write the selected run's report (preset and graph, curves, evaluation, environment, and the raw "
                                  "series as JSON) into one HTML file that opens in any browser, without the app or the network"));
    connect(m_reportAction, &QAction::triggered, this, &RunBrowser::exportReportInteractively);
    connect(m_diffButton, &QPushButton::clicked, this, &RunBrowser::showDiff);
    connect(m_rename, &QPushButton::clicked, this, &RunBrowser::renameInteractively);
    connect(m_delete, &QPushButton::clicked, this, [this] { deleteRuns(selectedRunIds()); });
}

namespace {

// One pinned baseline per database file.
QString baselineSettingKey(const QString &databasePath)
{
    return QStringLiteral("runs/baseline/") + QString::fromLatin1(databasePath.toUtf8().toBase64(QByteArray::Base64UrlEncoding));
}

} // namespace

void RunBrowser::setWatcher(RunDatabaseWatcher *watcher)
{
    if (watcher == m_watcher)
        return;
    if (m_watcher)
        m_watcher->disconnect(this);
    m_watcher = watcher;
    if (watcher) {
        connect(watcher, &RunDatabaseWatcher::connectionReplaced, this, &RunBrowser::showDatabase);
        connect(watcher, &RunDatabaseWatcher::runsChanged, this, [this] { refreshRuns(true); });
        // A run suspended in a terminal (Ctrl-Z) changes nothing in the database: looked at every second.
        connect(watcher, &RunDatabaseWatcher::ticked, this, [this] { m_model->updateSuspendedRuns(); });
    }
    showDatabase(database());
}

Status RunBrowser::openDatabase(const QString &path, const QString &teamCopy)
{
    if (!m_watcher)
        setWatcher(new RunDatabaseWatcher(this));
    const Status opened = m_watcher->open(path, teamCopy);
    if (!opened.ok())
        setStatus(opened.error().toString());
    return opened;
}

RunDatabaseWatcher *RunBrowser::watcher() const { return m_watcher; }

RunDatabase *RunBrowser::database() const { return m_watcher ? m_watcher->database() : nullptr; }

void RunBrowser::showDatabase(RunDatabase *db)
{
    setStatus(QString());
    m_model->setDatabase(db);
    if (!db)
        return;
    fitColumns();
    // The baseline pinned last time on this database, if its run is still there.
    const qint64 pinned = QSettings().value(baselineSettingKey(db->path()), 0).toLongLong();
    m_baseline = -1;  // so that setBaseline() below always applies and announces
    setBaseline(pinned > 0 && db->run(pinned).ok() ? pinned : 0);
    m_pageLoader->start();
}

void RunBrowser::loadNextPage()
{
    if (!m_model->canFetchMore())
        return;
    m_model->fetchMore();
    if (m_model->canFetchMore())
        m_pageLoader->start();
}

QString RunBrowser::databasePath() const { return database() ? database()->path() : QString(); }

void RunBrowser::refresh()
{
    m_model->updateSuspendedRuns();
    refreshRuns(false);
}

void RunBrowser::refreshRuns(bool withWatcherStamp)
{
    const bool wasEmpty = m_model->rowCount() == 0;
    // The stamp the watcher has just read, unless it could not (then the model reads it and shows why it cannot).
    const bool stampRead = withWatcherStamp && m_watcher && m_watcher->hasCurrentRunsStamp();
    if (!(stampRead ? m_model->refresh(m_watcher->runsStamp()) : m_model->refresh()))
        return;
    if (wasEmpty && m_model->rowCount() > 0)
        fitColumns();
    updateActions();
    if (!m_lastSelection.isEmpty() || m_baseline > 0)
        m_comparison->setRuns(database(), m_lastSelection, m_baseline);  // a running run's numbers move
}

QList<qint64> RunBrowser::selectedRunIds() const
{
    QList<int> rows;
    for (const QModelIndex &index : m_view->selectionModel()->selectedRows())
        rows << index.row();
    std::sort(rows.begin(), rows.end());
    QList<qint64> ids;
    for (int row : rows)
        ids << m_proxy->runIdAt(row);
    return ids;
}

void RunBrowser::selectRuns(const QList<qint64> &ids)
{
    QItemSelection selection;
    for (qint64 id : ids) {
        const int sourceRow = m_model->rowOfRun(id);
        if (sourceRow < 0)
            continue;
        const QModelIndex index = m_proxy->mapFromSource(m_model->index(sourceRow, 0));
        if (index.isValid())
            selection.select(index, index);
    }
    m_view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void RunBrowser::selectRunsWhenListed(const QList<qint64> &ids)
{
    m_pendingSelection = ids;
    selectRuns(ids);
}

void RunBrowser::setBaseline(qint64 runId)
{
    if (runId == m_baseline)
        return;
    m_baseline = runId;
    if (database())
        QSettings().setValue(baselineSettingKey(database()->path()), runId);  // survives a restart
    m_pin->setText(m_baseline > 0 ? tr("Unpin baseline #%1").arg(m_baseline) : tr("Pin baseline"));
    updateActions();
    updateDetails();
    Q_EMIT baselineChanged(m_baseline);
}

void RunBrowser::onSelectionChanged()
{
    const QList<qint64> ids = selectedRunIds();
    if (!m_pendingSelection.isEmpty()) {
        QList<qint64> wanted = m_pendingSelection, got = ids;
        std::sort(wanted.begin(), wanted.end());
        std::sort(got.begin(), got.end());
        if (got == wanted)
            m_pendingSelection.clear();  // all listed and selected
        else if (!std::includes(wanted.begin(), wanted.end(), got.begin(), got.end()))
            m_pendingSelection.clear();  // selected otherwise (by hand): nothing to finish
    }
    if (ids == m_lastSelection)
        return;
    m_lastSelection = ids;
    updateActions();
    updateDetails();
    Q_EMIT selectionChanged(ids);
}

void RunBrowser::applyStatusFilter(int index)
{
    const QList<StatusChoice> choices = statusChoices();
    if (index < choices.size())
        m_proxy->setStatusFilter(choices.at(index).statuses);
    else
        m_proxy->setStatusFilter({allRunStatuses().value(index - int(choices.size()))});
}

void RunBrowser::updateTagChoices()
{
    const QString current = m_tagChoice->currentIndex() > 0 ? m_tagChoice->currentText() : QString();
    const QStringList tags = m_model->allTags();
    QStringList shown;
    for (int i = 1; i < m_tagChoice->count(); ++i)
        shown << m_tagChoice->itemText(i);
    if (shown == tags)
        return;
    const QSignalBlocker block(m_tagChoice);
    m_tagChoice->clear();
    m_tagChoice->addItem(tr("All tags"));
    m_tagChoice->addItems(tags);
    m_tagChoice->setCurrentIndex(std::max(0, int(tags.indexOf(current)) + 1));
    m_proxy->setTagFilter(m_tagChoice->currentIndex() > 0 ? current : QString());
}

void RunBrowser::widenIdColumn(int first, int last)
{
    QString widest;
    for (int row = first; row <= last; ++row) {
        const QString id = RunDatabase::displayedRunId(m_model->runAt(row).id);
        if (id.size() > widest.size())
            widest = id;
    }
    // The text, the run's colour icon and the cell's margins.
    const int needed = m_view->fontMetrics().horizontalAdvance(widest) + m_view->iconSize().width() + 6 * m_view->fontMetrics().averageCharWidth();
    if (m_view->columnWidth(RunsTableModel::IdColumn) < needed)
        m_view->setColumnWidth(RunsTableModel::IdColumn, needed);
}

void RunBrowser::fitColumns()
{
    m_view->resizeColumnsToContents();
    widenIdColumn(0, m_model->rowCount() - 1);
    for (const auto &[column, least, most] : {std::tuple{int(RunsTableModel::NameColumn), 140, 320},
                                              std::tuple{int(RunsTableModel::PresetColumn), 120, 260}})
        m_view->setColumnWidth(column, std::clamp(m_view->columnWidth(column), least, most));
}

void RunBrowser::setStatus(const QString &message) { m_status->setText(message); }

void RunBrowser::showLoadProblem(const QString &message)
{
    m_loadProblem->setText(message.isEmpty() ? QString() : tr("The runs cannot be listed, so this list may be incomplete: %1").arg(message));
    m_loadProblem->setVisible(!message.isEmpty());
}

QString RunBrowser::statusText() const { return m_status->text(); }

} // namespace ty
