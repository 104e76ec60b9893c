// RunBrowser: lineage (the run a run started from, the runs fine-tuned from it), fine-tuning from a run, and the
// table's context menu.

#include "run_browser.h"

#include "fine_tune_preset.h"
#include "preset_format.h"
#include "preset_inspection.h"
#include "run_database.h"
#include "run_lineage.h"
#include "runs_filter_proxy_model.h"
#include "runs_table_model.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QTableView>

#include <algorithm>

namespace ty {

void RunBrowser::updateLineage()
{
    const qint64 id = m_lastSelection.size() == 1 ? m_lastSelection.first() : 0;
    const int row = id != 0 ? m_model->rowOfRun(id) : -1;  // a teammate's run in Both has a negative id
    QStringList lines;
    QString importTip;
    if (row >= 0 && !m_model->runAt(row).parent.isEmpty()) {
        const QJsonObject &parent = m_model->runAt(row).parent;
        lines << parentDescriptionHtml(parent);
        // The table's rows carry the import report's counts; its tensors come from the run's own record.
        if (parent.contains(QStringLiteral("import")) && database())
            if (const Result<RunInfo> run = database()->run(id); run.ok())
                importTip = importDetails(run.value().provenance.value(QStringLiteral("init_from")).toObject());
    }
    QStringList children;
    for (int i = 0; row >= 0 && i < m_model->rowCount(); ++i)
        if (m_model->runAt(i).parentRunId() == id)
            children.prepend(QStringLiteral("<a href=\"run:%1\">#%2</a>").arg(m_model->runAt(i).id).arg(RunDatabase::displayedRunId(m_model->runAt(i).id)));  // oldest first
    if (!children.isEmpty())
        lines << tr("Fine-tuned into %1").arg(children.join(QStringLiteral(", ")));
    m_lineage->setText(lines.join(QStringLiteral("<br>")));
    m_lineage->setToolTip(importTip);
    m_lineage->setVisible(!lines.isEmpty());
}

bool RunBrowser::showRun(qint64 id)
{
    if (m_model->rowOfRun(id) < 0)
        m_model->fetchAll();  // an older run, on a page not loaded yet
    const int sourceRow = m_model->rowOfRun(id);
    if (sourceRow < 0) {
        setStatus(tr("Run #%1 is not in this run database (deleted?)").arg(id));
        return false;
    }
    if (!m_proxy->mapFromSource(m_model->index(sourceRow, 0)).isValid()) {  // filtered out: show every run
        m_filter->clear();
        m_statusChoice->setCurrentIndex(0);
        m_tagChoice->setCurrentIndex(0);
    }
    selectRuns({id});
    m_view->scrollTo(m_proxy->mapFromSource(m_model->index(sourceRow, 0)));
    return true;
}

bool RunBrowser::showRuns(const QList<qint64> &ids)
{
    if (std::any_of(ids.begin(), ids.end(), [this](qint64 id) { return m_model->rowOfRun(id) < 0; }))
        m_model->fetchAll();  // older runs, on pages not loaded yet
    QList<qint64> present;
    bool hidden = false;
    for (qint64 id : ids)
        if (const int sourceRow = m_model->rowOfRun(id); sourceRow >= 0) {
            present << id;
            hidden = hidden || !m_proxy->mapFromSource(m_model->index(sourceRow, 0)).isValid();
        }
    if (hidden) {  // filtered out: show every run
        m_filter->clear();
        m_statusChoice->setCurrentIndex(0);
        m_tagChoice->setCurrentIndex(0);
    }
    selectRuns(present);
    if (!present.isEmpty())
        m_view->scrollTo(m_proxy->mapFromSource(m_model->index(m_model->rowOfRun(present.first()), 0)));
    return present.size() == ids.size();
}

void RunBrowser::activateCell(const QModelIndex &proxyIndex)
{
    if (proxyIndex.column() != RunsTableModel::ParentColumn)
        return;
    const qint64 parent = proxyIndex.data(RunsTableModel::ParentRunIdRole).toLongLong();
    if (parent > 0)
        showRun(parent);
}

Status RunBrowser::requestFineTune(qint64 id)
{
    const auto fail = [this, id](const QString &why) {
        Error error;
        error.message = tr("Cannot fine-tune from run #%1: %2").arg(id).arg(why);
        setStatus(error.message);
        return Status(error);
    };
    if (!database() || id <= 0)
        return fail(tr("no run database is open"));
    const Result<RunInfo> info = database()->run(id);
    if (!info.ok())
        return fail(info.error().message);
    const Result<Preset> preset = presetFromJson(info.value().preset, QString());
    if (!preset.ok())
        return fail(tr("its preset cannot be read: %1").arg(preset.error().toString()));
    const Result<QList<CheckpointRecord>> checkpoints = database()->checkpoints(id);
    if (!checkpoints.ok())
        return fail(checkpoints.error().message);
    if (checkpoints.value().isEmpty())
        return fail(tr("it has no checkpoint yet"));
    const bool hasBest = std::any_of(checkpoints.value().begin(), checkpoints.value().end(),
                                     [](const CheckpointRecord &c) { return c.best; });
    // The parameter counts say which layers to freeze; relative data paths resolve against the run's preset file.
    Preset located = preset.value();
    located.sourcePath = info.value().provenance.value(QStringLiteral("preset_file")).toString();
    const Result<Preset> tuned = fineTunePreset(
        located, FineTuneSource{id, info.value().name, hasBest ? QStringLiteral("best") : QStringLiteral("last")},
        inspectPresetShapes(located));
    if (!tuned.ok())
        return fail(tuned.error().message);
    setStatus(QString());  // the window says where the new preset went
    Q_EMIT fineTuneRequested(tuned.value(), id);
    return Status::success();
}

QMenu *RunBrowser::createContextMenu(QWidget *menuParent)
{
    auto *menu = new QMenu(menuParent);
    const QList<qint64> ids = selectedRunIds();
    const qint64 id = ids.size() == 1 ? ids.first() : 0;
    const int row = id != 0 ? m_model->rowOfRun(id) : -1;
    const auto mirror = [menu](QPushButton *button, const QString &text) {
        QAction *action = menu->addAction(text);
        QObject::connect(action, &QAction::triggered, button, &QPushButton::click);
        action->setEnabled(button->isEnabled());
        action->setToolTip(button->toolTip());
        return action;
    };
    mirror(m_open, tr("Open Preset"));
    mirror(m_fineTune, tr("Fine-tune from This Run…"))->setObjectName(QStringLiteral("fine-tune"));
    const qint64 parent = row >= 0 ? m_model->runAt(row).parentRunId() : 0;
    if (parent != 0) {
        QAction *toParent = menu->addAction(tr("Go to Parent Run #%1").arg(RunDatabase::displayedRunId(parent)));
        toParent->setObjectName(QStringLiteral("go-to-parent"));
        connect(toParent, &QAction::triggered, this, [this, parent] { showRun(parent); });
    }
    menu->addSeparator();
    mirror(m_evaluate, tr("Evaluate"));
    mirror(m_export, tr("Export…"));
    mirror(m_metricsCsv, tr("Export Metrics as CSV…"))->setObjectName(QStringLiteral("export-metrics-csv"));
    menu->addAction(m_bundleAction);
    menu->addAction(m_reportAction);
    mirror(m_pin, m_pin->text());
    mirror(m_resume, m_resume->text());
    menu->addSeparator();
    mirror(m_rename, tr("Rename"));
    mirror(m_delete, tr("Delete…"));
    return menu;
}

void RunBrowser::showContextMenu(const QPoint &pos)
{
    const QModelIndex index = m_view->indexAt(pos);
    if (!index.isValid())
        return;
    if (!m_view->selectionModel()->isRowSelected(index.row(), QModelIndex()))
        selectRuns({m_proxy->runIdAt(index.row())});
    QMenu *menu = createContextMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(m_view->viewport()->mapToGlobal(pos));
}

} // namespace ty
