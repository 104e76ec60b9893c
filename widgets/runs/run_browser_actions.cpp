// RunBrowser: the actions on selected runs and the detail tabs.

#include "run_browser.h"

#include "common/canvas_style.h"
#include "preset_diff_view.h"
#include "preset_format.h"
#include "run_comparison_view.h"
#include "run_database.h"
#include "run_liveness.h"
#include "runs_filter_proxy_model.h"
#include "runs_table_model.h"

#include <QAction>
#include <QComboBox>
#include <QSignalBlocker>
#include <QTableView>
#include <QLabel>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QProcess>
#include <QSettings>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>

#include <algorithm>

namespace ty {

namespace {

bool resumable(RunStatus status)
{
    return status == RunStatus::Interrupted || status == RunStatus::Stopped || status == RunStatus::Failed;
}

} // namespace

void RunBrowser::updateActions()
{
    const QList<qint64> ids = selectedRunIds();
    const int row = ids.size() == 1 ? m_model->rowOfRun(ids.first()) : -1;
    const bool one = row >= 0;
    m_pin->setEnabled(one || m_baseline > 0);
    m_open->setEnabled(one);
    m_fineTune->setEnabled(one && m_model->runAt(row).status != RunStatus::Queued);
    const bool running = one && m_model->runAt(row).status == RunStatus::Running;
    m_resume->setText(running ? tr("Stop") : tr("Resume"));
    m_resume->setToolTip(running ? tr("Stop the selected run after a checkpoint, wherever on this machine it was started")
                                 : tr("Continue an interrupted, stopped or failed run from its last checkpoint"));
    m_resume->setEnabled(one && (running ? m_model->runAt(row).host == thisHostName() : resumable(m_model->runAt(row).status)));
    m_rename->setEnabled(one);
    m_evaluate->setEnabled(ids.size() == 1 || ids.size() == 2);
    m_export->setEnabled(one && !m_workerPath.isEmpty());
    m_metricsCsv->setEnabled(!ids.isEmpty() && !m_exportingMetrics);
    const QString bundleRefused = bundleRefusal(ids);
    m_bundleAction->setEnabled(!ids.isEmpty() && !m_exportingBundle && bundleRefused.isEmpty());
    m_bundleAction->setToolTip(!bundleRefused.isEmpty() ? bundleRefused
                                                  : tr("Write the selected runs, with every metric row, evaluation and checkpoint "
                                                       "file, into one run bundle (.tybundle) that File ▸ Import Runs… or "
                                                       "trainyard-cli runs import merges into another run database"));
    m_reportAction->setEnabled(ids.size() == 1 && database());
    m_delete->setEnabled(!ids.isEmpty());
    m_diffButton->setEnabled(ids.size() == 2 || (ids.size() == 1 && m_baseline > 0 && ids.first() != m_baseline));
    m_notes->setEnabled(one);
    m_tags->setEnabled(one);
    m_saveNotes->setEnabled(one);
    const bool copied = std::any_of(ids.cbegin(), ids.cend(), [this](qint64 id) { return isReadOnlyRun(id); });
    if (copied) {  // a copy of the store: nothing here would reach it
        for (QWidget *off : std::initializer_list<QWidget *>{m_fineTune, m_resume, m_rename, m_export, m_delete, m_saveNotes})
            off->setEnabled(false);
    }
    m_notes->setReadOnly(copied);
    m_tags->setReadOnly(copied);
}

bool RunBrowser::isReadOnlyRun(qint64 id) const
{
    return m_source == RunSource::Team || (m_source == RunSource::Both && RunDatabase::isTeamCopyId(id));
}

void RunBrowser::setRunSource(RunSource source)
{
    const RunSource before = m_source;
    m_source = source;
    m_model->setEditable(source != RunSource::Team);  // Both: the model refuses the copied runs itself
    m_proxy->setTeamIds(source == RunSource::Team);
    m_view->setColumnHidden(RunsTableModel::MachineColumn, source == RunSource::ThisMachine);
    // Both: this machine's runs and the team's, newest first (by id, the copied runs would all come last).
    if ((source == RunSource::Both) != (before == RunSource::Both))
        m_view->sortByColumn(source == RunSource::Both ? RunsTableModel::CreatedColumn : RunsTableModel::IdColumn, Qt::DescendingOrder);
    {
        const QSignalBlocker quiet(m_sourceChoice);
        m_sourceChoice->setCurrentIndex(int(source));
    }
    updateActions();
}

void RunBrowser::updateDetails()
{
    m_comparison->setRuns(database(), m_lastSelection, m_baseline);
    const int row = m_lastSelection.size() == 1 ? m_model->rowOfRun(m_lastSelection.first()) : -1;
    m_notes->setPlainText(row >= 0 ? m_model->runAt(row).notes : QString());
    m_tags->setText(row >= 0 ? m_model->runAt(row).tags.join(QStringLiteral(", ")) : QString());
    // The list reads no presets: the hypothesis comes with the one run's record.
    QString hypothesis;
    if (row >= 0 && database())
        if (const Result<RunInfo> run = database()->run(m_lastSelection.first()); run.ok())
            hypothesis = run.value().preset.value(QStringLiteral("hypothesis")).toString();
    m_hypothesis->setText(hypothesis.isEmpty() ? tr("(none: a preset's \"hypothesis\" field)") : hypothesis);
    updateLineage();
    if (m_diffButton->isEnabled())
        showDiff();
    else
        m_diff->showHint();
}

bool RunBrowser::exportRun(qint64 id, const QString &format, const QString &path)
{
    if (m_workerPath.isEmpty() || !database()) {
        setStatus(tr("Cannot export: no trainyard-cli to run"));
        return false;
    }
    auto *process = new QProcess(this);
    connect(process, &QProcess::finished, this, [this, process, id, path] {
        process->deleteLater();
        const bool ok = process->exitStatus() == QProcess::NormalExit && process->exitCode() == 0;
        const QString message = ok ? tr("Run #%1 exported to %2").arg(id).arg(QDir::toNativeSeparators(path))
                                   : tr("Export of run #%1 failed: %2").arg(id).arg(QString::fromUtf8(process->readAllStandardError()).trimmed().section(QLatin1Char('\n'), 0, 0));
        setStatus(message);
        Q_EMIT exportFinished(id, ok, message);
    });
    connect(process, &QProcess::errorOccurred, this, [this, process, id](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        process->deleteLater();
        const QString message = tr("Export of run #%1 failed: %2 does not start").arg(id).arg(m_workerPath);
        setStatus(message);
        Q_EMIT exportFinished(id, false, message);
    });
    setStatus(tr("Exporting run #%1…").arg(id));
    process->start(m_workerPath, {QStringLiteral("export"), QString::number(id), QStringLiteral("--format"), format,
                                  QStringLiteral("--output"), path, QStringLiteral("--db"), database()->path()});
    return true;
}

void RunBrowser::exportInteractively()
{
    const qint64 id = selectedRunIds().value(0);
    if (!id)
        return;
    QSettings settings;
    const QString folder = settings.value(QStringLiteral("runs/exportFolder"), QDir::homePath()).toString();
    const QString onnx = tr("ONNX model (*.onnx)"), weights = tr("safetensors weights (*.safetensors)");
    QString filter = onnx;
    QString path = QFileDialog::getSaveFileName(this, tr("Export run #%1").arg(id), QDir(folder).filePath(QStringLiteral("run-%1.onnx").arg(id)),
                                                onnx + QStringLiteral(";;") + weights, &filter);
    if (path.isEmpty())
        return;
    const QString format = filter == weights || path.endsWith(QStringLiteral(".safetensors")) ? QStringLiteral("safetensors") : QStringLiteral("onnx");
    if (QFileInfo(path).suffix().isEmpty())
        path += format == QStringLiteral("onnx") ? QStringLiteral(".onnx") : QStringLiteral(".safetensors");
    settings.setValue(QStringLiteral("runs/exportFolder"), QFileInfo(path).absolutePath());  // the dialog remembers its folder
    exportRun(id, format, path);
}

Status RunBrowser::renameRun(qint64 id, const QString &name)
{
    const Status status = m_model->renameRun(id, name);
    setStatus(status.ok() ? tr("Run #%1 renamed.").arg(id) : status.error().toString());
    return status;
}

void RunBrowser::renameInteractively()
{
    const QList<qint64> ids = selectedRunIds();
    const int row = ids.size() == 1 ? m_model->rowOfRun(ids.first()) : -1;
    if (row < 0)
        return;
    const QModelIndex cell = m_proxy->mapFromSource(m_model->index(row, RunsTableModel::NameColumn));
    m_view->setCurrentIndex(cell);
    m_view->edit(cell);
}
Status RunBrowser::saveNotesAndTags(qint64 id, const QString &notes, const QString &tags)
{
    Status status = m_model->setNotes(id, notes);
    if (status.ok())
        status = m_model->setTags(id, tags.split(QLatin1Char(','), Qt::SkipEmptyParts));
    setStatus(status.ok() ? tr("Notes and tags of run #%1 saved.").arg(id) : status.error().toString());
    return status;
}

int RunBrowser::deleteRuns(const QList<qint64> &ids)
{
    if (ids.isEmpty() || !database())
        return 0;
    const QString question = ids.size() == 1
        ? tr("Delete run #%1, its metrics and its folder (checkpoints)? This cannot be undone.").arg(ids.first())
        : tr("Delete %1 runs, their metrics and their folders (checkpoints)? This cannot be undone.").arg(ids.size());
    if (!m_confirm(question))
        return 0;
    QList<qint64> deleted;
    QStringList problems;
    for (qint64 id : ids) {
        const Status status = m_model->deleteRun(id);
        if (status.ok() || m_model->rowOfRun(id) < 0)
            deleted << id;
        if (!status.ok())
            problems << status.error().toString();
    }
    if (deleted.contains(m_baseline))
        setBaseline(0);
    setStatus(problems.isEmpty() ? tr("%1 deleted.").arg(style::counted(deleted.size(), tr("run"), tr("runs"))) : problems.join(QLatin1Char('\n')));
    if (!deleted.isEmpty())
        Q_EMIT runsDeleted(deleted);
    return int(deleted.size());
}

void RunBrowser::requestOpenPreset(qint64 id)
{
    if (!database() || id <= 0)
        return;
    const Result<RunInfo> info = database()->run(id);
    if (!info.ok())
        return setStatus(info.error().toString());
    const Result<Preset> preset = presetFromJson(info.value().preset, QString());
    if (!preset.ok())
        return setStatus(tr("The preset of run #%1 cannot be read: %2").arg(id).arg(preset.error().toString()));
    Q_EMIT openPresetRequested(preset.value(), id);
}

void RunBrowser::requestResume(qint64 id)
{
    const int row = m_model->rowOfRun(id);
    if (row < 0)
        return;
    if (!resumable(m_model->runAt(row).status))
        return setStatus(tr("Run #%1 is %2; only interrupted, stopped or failed runs can be resumed.")
                             .arg(id)
                             .arg(runStatusName(m_model->runAt(row).status)));
    Q_EMIT resumeRequested(id);
}

void RunBrowser::requestStop(qint64 id)
{
    const int row = m_model->rowOfRun(id);
    if (row < 0)
        return;
    const RunSummaryRow &run = m_model->runAt(row);
    if (run.status != RunStatus::Running)
        return setStatus(tr("Run #%1 is %2; only a running run can be stopped.").arg(id).arg(runStatusName(run.status)));
    if (run.host != thisHostName())
        return setStatus(tr("Run #%1 trains on host \"%2\"; stop it there.").arg(id).arg(run.host));
    Q_EMIT stopRequested(id);  // the window's status bar says how it goes
}

void RunBrowser::showDiff()
{
    const QList<qint64> ids = m_lastSelection;
    qint64 a = 0, b = 0;
    if (ids.size() == 1 && m_baseline > 0 && ids.first() != m_baseline) {
        a = m_baseline;
        b = ids.first();
    } else if (ids.size() == 2) {
        a = std::min(ids.at(0), ids.at(1));
        b = std::max(ids.at(0), ids.at(1));
    } else {
        return;
    }
    const Result<RunInfo> runA = database()->run(a);
    const Result<RunInfo> runB = database()->run(b);
    if (!runA.ok() || !runB.ok())
        return m_diff->showMessage((runA.ok() ? runB : runA).error().toString());
    const Result<Preset> presetA = presetFromJson(runA.value().preset, QString());
    const Result<Preset> presetB = presetFromJson(runB.value().preset, QString());
    if (!presetA.ok() || !presetB.ok())
        return m_diff->showMessage(
            tr("A preset cannot be read: %1").arg((presetA.ok() ? presetB : presetA).error().toString()));
    m_diff->showDiff(QStringLiteral("#%1 %2").arg(RunDatabase::displayedRunId(a), runA.value().name), presetA.value(),
                     QStringLiteral("#%1 %2").arg(RunDatabase::displayedRunId(b), runB.value().name), presetB.value());
    if (sender() == m_diffButton)
        m_details->setCurrentWidget(m_diff);
}

} // namespace ty
