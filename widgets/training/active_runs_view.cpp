#include "active_runs_view.h"

#include "common/duration_text.h"
#include "common/run_colors.h"
#include "training_run_controller.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ty {

namespace {

enum ColumnIndex { RunColumn, StateColumn, ProgressColumn, EtaColumn, MetricsColumn };

QString eta(const TrainingRunController *c)
{
    const double seconds = c->etaSeconds();
    return c->isActive() && seconds >= 0 ? durationText(seconds) : QString();
}

QString metricsText(const TrainingRunController *c)
{
    QStringList parts;
    const QMap<QString, double> last = c->lastMetrics();
    for (const char *name : {"train/loss", "val/loss", "val/accuracy", "test/accuracy"}) {
        const auto it = last.constFind(QLatin1String(name));
        if (it != last.constEnd())
            parts << QStringLiteral("%1 %2").arg(it.key()).arg(it.value(), 0, 'g', 4);
    }
    return parts.join(QStringLiteral("  "));
}

} // namespace

ActiveRunsView::ActiveRunsView(QWidget *parent)
    : QWidget(parent), m_tree(new QTreeWidget(this)), m_pause(new QPushButton(tr("Pause"), this)),
      m_continue(new QPushButton(tr("Continue"), this)), m_stop(new QPushButton(tr("Stop"), this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_tree->setRootIsDecorated(false);
    m_tree->setUniformRowHeights(true);
    m_tree->setHeaderLabels({tr("Run"), tr("State"), tr("Progress"), tr("ETA"), tr("Last metrics")});
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // A variant's long name ("Fashion-MNIST MLP · fc1.out_features=64") must not push progress and ETA out of
    // sight: the run column is sized by hand, at most about 24 characters wide, the rest elided.
    m_tree->header()->setSectionResizeMode(RunColumn, QHeaderView::Interactive);
    m_tree->header()->setStretchLastSection(true);
    layout->addWidget(m_tree, 1);
    auto *buttons = new QHBoxLayout;
    m_stop->setToolTip(tr("Stop after a checkpoint (a second click ends the worker at once)"));
    for (QPushButton *b : {m_pause, m_continue, m_stop})
        buttons->addWidget(b);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this] {
        updateButtons();
        Q_EMIT selectionChanged();
    });
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        auto *c = static_cast<TrainingRunController *>(item->data(0, Qt::UserRole).value<QObject *>());
        if (c && !c->outcome().node.isEmpty())
            Q_EMIT nodeActivated(c->outcome().node, c->outcome().message);
    });
    connect(m_pause, &QPushButton::clicked, this, [this] { if (auto *c = selectedController()) c->pause(); });
    connect(m_continue, &QPushButton::clicked, this, [this] { if (auto *c = selectedController()) c->continueRun(); });
    connect(m_stop, &QPushButton::clicked, this, [this] { if (auto *c = selectedController()) c->stop(); });
    updateButtons();
}

void ActiveRunsView::addController(TrainingRunController *controller)
{
    auto *item = new QTreeWidgetItem(m_tree);
    item->setData(0, Qt::UserRole, QVariant::fromValue<QObject *>(controller));
    auto update = [this, controller] {
        updateRow(controller);
        updateButtons();
    };
    connect(controller, &TrainingRunController::progressChanged, this, [this, controller] { updateRow(controller); });
    connect(controller, &TrainingRunController::stateChanged, this, update);
    connect(controller, &TrainingRunController::runStarted, this, update);
    connect(controller, &QObject::destroyed, this, [this, item] {
        delete item;
        updateButtons();
    });
    updateRow(controller);
    m_tree->setCurrentItem(item);
    updateButtons();
}

QTreeWidgetItem *ActiveRunsView::itemOf(TrainingRunController *controller) const
{
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        if (m_tree->topLevelItem(i)->data(0, Qt::UserRole).value<QObject *>() == controller)
            return m_tree->topLevelItem(i);
    return nullptr;
}

QList<TrainingRunController *> ActiveRunsView::controllers() const
{
    QList<TrainingRunController *> out;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        out << static_cast<TrainingRunController *>(m_tree->topLevelItem(i)->data(0, Qt::UserRole).value<QObject *>());
    return out;
}

TrainingRunController *ActiveRunsView::selectedController() const
{
    QTreeWidgetItem *item = m_tree->currentItem();
    return item ? static_cast<TrainingRunController *>(item->data(0, Qt::UserRole).value<QObject *>()) : nullptr;
}

void ActiveRunsView::updateRow(TrainingRunController *c)
{
    QTreeWidgetItem *item = itemOf(c);
    if (!item)
        return;
    item->setText(RunColumn, c->runId() > 0 ? QStringLiteral("#%1 %2").arg(c->runId()).arg(c->runName()) : c->runName());
    item->setToolTip(RunColumn, item->text(RunColumn));
    item->setIcon(RunColumn, c->runId() > 0 ? style::runColorIcon(c->runId()) : QIcon());
    m_tree->resizeColumnToContents(RunColumn);
    const int widest = m_tree->fontMetrics().averageCharWidth() * 24;
    if (m_tree->columnWidth(RunColumn) > widest)
        m_tree->setColumnWidth(RunColumn, widest);
    const bool ended = c->state() == TrainingState::Ended;
    item->setText(StateColumn, ended ? c->outcome().status : trainingStateName(c->state()));
    QString progress;
    if (c->startInfo().epochs > 0 && c->epoch() > 0)
        progress = tr("epoch %1/%2, ").arg(c->epoch()).arg(c->startInfo().epochs);
    if (c->totalSteps() > 0)
        progress += tr("step %1/%2").arg(c->step()).arg(c->totalSteps());
    item->setText(ProgressColumn, progress);
    item->setText(EtaColumn, eta(c));
    const TrainingOutcome &outcome = c->outcome();
    QString message;
    if (ended && !outcome.message.isEmpty())
        message = outcome.node.isEmpty() ? outcome.message : tr("%1 (node %2)").arg(outcome.message, outcome.node);
    item->setText(MetricsColumn, message.isEmpty() ? metricsText(c) : message);
    item->setToolTip(MetricsColumn, message.isEmpty() ? c->statusLine() : message);
    const QString status = c->outcome().status;
    const bool bad = ended && status != QLatin1String("finished") && status != QLatin1String("stopped");
    item->setForeground(StateColumn, bad ? QBrush(QColor(0xc0, 0x39, 0x2b)) : QBrush());
}

void ActiveRunsView::updateButtons()
{
    const TrainingRunController *c = selectedController();
    const TrainingState state = c ? c->state() : TrainingState::Idle;
    m_pause->setEnabled(state == TrainingState::Running || state == TrainingState::Starting);
    m_continue->setEnabled(state == TrainingState::Paused);
    m_stop->setEnabled(c && c->isActive());
}

} // namespace ty
