#include "run_queue_view.h"

#include "common/canvas_style.h"
#include "run_database.h"
#include "run_database_watcher.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ty {

namespace {
enum Column { PlaceColumn, StateColumn, KindColumn, NameColumn, SweepColumn, ProcessColumn, SinceColumn, ColumnCount };
}

RunQueueView::RunQueueView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("At most"), this));
    m_limit = new QSpinBox(this);
    m_limit->setObjectName(QStringLiteral("queueLimit"));
    m_limit->setRange(0, 1000);
    m_limit->setMaximumWidth(140);
    m_limit->setSpecialValueText(tr("any number of"));
    m_limit->setToolTip(tr("Runs trained at once from this run database, by the app or in a terminal; more wait here. "
                           "0: no limit"));
    top->addWidget(m_limit);
    top->addWidget(new QLabel(tr("runs at once"), this));
    top->addStretch(1);
    m_up = new QPushButton(tr("Move Up"), this);
    m_down = new QPushButton(tr("Move Down"), this);
    m_startNow = new QPushButton(tr("Start Now"), this);
    m_startNow->setToolTip(tr("Start the selected run at once, whatever the limit"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setToolTip(tr("Take the selected run out of the queue: its process ends and records nothing"));
    for (QPushButton *button : {m_up, m_down, m_startNow, m_cancel})
        top->addWidget(button);
    layout->addLayout(top);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setObjectName(QStringLiteral("queueTable"));
    m_table->setHorizontalHeaderLabels({tr("Place"), tr("State"), tr("Kind"), tr("Name"), tr("Sweep"), tr("Process"), tr("Waiting since")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(NameColumn, QHeaderView::Stretch);
    layout->addWidget(m_table, 1);

    connect(m_limit, &QSpinBox::editingFinished, this, [this] {
        if (database())
            apply(database()->setMaxRunning(m_limit->value()));
    });
    connect(m_up, &QPushButton::clicked, this, [this] { moveSelected(-1); });
    connect(m_down, &QPushButton::clicked, this, [this] { moveSelected(1); });
    connect(m_startNow, &QPushButton::clicked, this, [this] { startSelectedNow(); });
    connect(m_cancel, &QPushButton::clicked, this, [this] { cancelSelected(); });
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &RunQueueView::updateButtons);
    updateButtons();
}

RunQueueView::~RunQueueView() = default;

void RunQueueView::setWatcher(RunDatabaseWatcher *watcher)
{
    if (m_watcher)
        m_watcher->disconnect(this);
    m_watcher = watcher;
    if (!watcher)
        return;
    connect(watcher, &RunDatabaseWatcher::connectionReplaced, this, &RunQueueView::refresh);
    // Entries come and go with commits; a listed one also goes when its process dies, which commits nothing.
    connect(watcher, &RunDatabaseWatcher::ticked, this, [this] {
        if (m_watcher->generation() != m_readAt || !m_entries.isEmpty())
            refresh();
    });
    refresh();
}

RunDatabaseWatcher *RunQueueView::watcher() const { return m_watcher; }

RunDatabase *RunQueueView::database() const { return m_watcher ? m_watcher->database() : nullptr; }

void RunQueueView::refresh()
{
    if (!database())
        return;
    m_readAt = m_watcher->generation();
    const Result<int> limit = database()->maxRunning();
    const Result<QList<QueueEntry>> entries = limit ? database()->queueEntries() : Result<QList<QueueEntry>>(limit.error());
    if (!entries) {
        m_summary->setText(entries.error().toString());
        return;
    }
    if (!m_limit->hasFocus()) {
        const QSignalBlocker blocker(m_limit);
        m_limit->setValue(limit.value());
    }
    const qint64 selected = selectedEntry();
    m_entries = entries.value();
    m_table->setRowCount(int(m_entries.size()));
    int place = 0, waiting = 0;
    for (int row = 0; row < m_entries.size(); ++row) {
        const QueueEntry &entry = m_entries.at(row);
        const bool isWaiting = entry.state == QLatin1String("waiting");
        waiting += isWaiting ? 1 : 0;
        const QStringList cells{isWaiting ? QString::number(++place) : QString(),
                                entry.state == QLatin1String("admitted") ? tr("starting") : entry.startNow ? tr("starting now") : tr("waiting"),
                                entry.kind == QLatin1String("resume") ? tr("resume of run %1").arg(entry.runId) : entry.kind,
                                entry.name,
                                entry.sweepId > 0 ? tr("#%1, trial %2").arg(entry.sweepId).arg(entry.sweepTrial) : QString(),
                                QStringLiteral("%1 on %2").arg(entry.pid).arg(entry.host),
                                entry.createdAt.toLocalTime().toString(QStringLiteral("HH:mm:ss"))};
        for (int column = 0; column < ColumnCount; ++column) {
            auto *item = new QTableWidgetItem(cells.at(column));
            item->setData(Qt::UserRole, entry.id);
            m_table->setItem(row, column, item);
        }
    }
    selectEntry(selected);
    m_summary->setText(limit.value() == 0 ? tr("No limit: every run starts at once. Set one to make runs wait their turn.")
                                          : tr("%1 waiting; at most %2 train at once.").arg(style::counted(waiting, tr("run"), tr("runs"))).arg(limit.value()));
    if (waiting != m_waiting) {
        m_waiting = waiting;
        Q_EMIT waitingCountChanged(waiting);
    }
    updateButtons();
}

qint64 RunQueueView::selectedEntry() const
{
    const QList<QTableWidgetItem *> items = m_table->selectedItems();
    return items.isEmpty() ? 0 : items.first()->data(Qt::UserRole).toLongLong();
}

void RunQueueView::selectEntry(qint64 id)
{
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (m_table->item(row, 0)->data(Qt::UserRole).toLongLong() == id && id != 0) {
            m_table->selectRow(row);
            return;
        }
    m_table->clearSelection();
}

bool RunQueueView::apply(const Status &status)
{
    if (!status)
        Q_EMIT statusMessage(status.error().toString());
    refresh();
    return status.ok();
}

bool RunQueueView::moveSelected(int steps) { return database() && selectedEntry() && apply(database()->moveQueued(selectedEntry(), steps)); }
bool RunQueueView::startSelectedNow() { return database() && selectedEntry() && apply(database()->startQueuedNow(selectedEntry())); }
bool RunQueueView::cancelSelected() { return database() && selectedEntry() && apply(database()->cancelQueued(selectedEntry())); }

void RunQueueView::updateButtons()
{
    const qint64 id = selectedEntry();
    bool waiting = false;
    for (const QueueEntry &entry : m_entries)
        waiting = waiting || (entry.id == id && entry.state == QLatin1String("waiting"));
    for (QPushButton *button : {m_up, m_down, m_startNow, m_cancel})
        button->setEnabled(waiting);
}

} // namespace ty
