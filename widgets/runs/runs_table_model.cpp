#include "runs_table_model.h"

#include "run_process_state.h"

#include "common/duration_text.h"
#include "common/run_colors.h"
#include "run_lineage.h"
#include "run_liveness.h"

#include <QBrush>
#include <QColor>
#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QSet>

#include <cmath>

namespace ty {

namespace {

QString machineText(const QString &host)
{
    if (!host.isEmpty() && host == thisHostName())
        return QStringLiteral("%1 (this machine)").arg(host);
    return host;
}

int metricColumnCount() { return int(keyMetricNames().size()) * 2; }

// For column c >= FirstMetricColumn: the key metric and whether it is its best (else last) value.
QString metricOfColumn(int column, bool *best)
{
    const int offset = column - RunsTableModel::FirstMetricColumn;
    *best = offset % 2 == 0;
    return keyMetricNames().value(offset / 2);
}

QString formatTime(const QDateTime &time)
{
    return time.isValid() ? time.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")) : QString();
}

QVariant timeOrNothing(const QDateTime &time) { return time.isValid() ? QVariant(time) : QVariant(); }
QVariant numberOrNothing(double value) { return std::isnan(value) ? QVariant() : QVariant(value); }

bool isLearningRateTest(const RunSummaryRow &row) { return row.kind == QLatin1String(kRunKindLrFind); }

QColor statusColor(RunStatus status)
{
    switch (status) {
    case RunStatus::Running: return QColor(0x1f, 0x6f, 0xd0);
    case RunStatus::Failed:
    case RunStatus::Diverged: return QColor(0xc0, 0x39, 0x2b);
    case RunStatus::Interrupted: return QColor(0xd3, 0x7a, 0x00);
    case RunStatus::Stopped:
    case RunStatus::Pruned:
    case RunStatus::Queued: return QColor(0x70, 0x70, 0x70);
    case RunStatus::Finished: break;
    }
    return QColor();
}

} // namespace

RunsTableModel::RunsTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void RunsTableModel::setDatabase(RunDatabase *db)
{
    m_db = db;
    m_pageSize = std::max(m_pageSize, 1);
    reload();
}

int RunsTableModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int RunsTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : FirstMetricColumn + metricColumnCount();
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char *const fixed[] = {"ID",      "Name",    "Status", "Preset",   "From",
                                        "Created", "Started", "Ended",  "Duration", "Tags", "Machine"};
    if (section == ParentColumn && role == Qt::ToolTipRole)
        return QStringLiteral("The run (or weights file) whose weights this run started from (training.init_from)");
    if (section < FirstMetricColumn)
        return QString::fromLatin1(fixed[section]);
    bool best = false;
    const QString metric = metricOfColumn(section, &best);
    if (role == Qt::ToolTipRole)
        return best ? QStringLiteral("%1: the best value (its %2)")
                          .arg(metric, metricHigherIsBetter(metric) ? QStringLiteral("maximum") : QStringLiteral("minimum"))
                    : QStringLiteral("%1: the value at the last step").arg(metric);
    return QStringLiteral("%1 %2").arg(metric, best ? QStringLiteral("best") : QStringLiteral("last"));
}

QVariant RunsTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return QVariant();
    const RunSummaryRow &row = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole: return displayValue(row, index.column());
    case Qt::EditRole: return index.column() == NameColumn ? QVariant(row.name) : displayValue(row, index.column());
    case SortRole: return sortValue(row, index.column());
    case RunIdRole: return row.id;
    case StatusRole: return int(row.status);
    case TagsRole: return row.tags;
    case ParentRunIdRole: return row.parentRunId();
    case Qt::ToolTipRole:
        if (index.column() == StatusColumn && !row.statusMessage.isEmpty())
            return row.errorNode.isEmpty() ? row.statusMessage
                                           : QStringLiteral("%1 (node %2)").arg(row.statusMessage, row.errorNode);
        if (index.column() == NameColumn && isLearningRateTest(row))
            return QStringLiteral("A learning-rate range test (trainyard-cli lrfind, or an optimizer's Find learning rate…):"
                                  " its train/loss is plotted against lr, its suggestions are in its record.%1%2")
                .arg(row.notes.isEmpty() ? QString() : QStringLiteral("\n\n"), row.notes);
        if (index.column() == NameColumn && !row.notes.isEmpty())
            return row.notes;
        if (index.column() == ParentColumn && !row.parent.isEmpty())
            return parentDescription(row.parent);
        return QVariant();
    case Qt::ForegroundRole:
        if (index.column() == StatusColumn && m_paused.contains(row.id) && row.status == RunStatus::Running)
            return QBrush(QColor(0xb0, 0x7d, 0x10));
        if (index.column() == StatusColumn && statusColor(row.status).isValid())
            return QBrush(statusColor(row.status));
        return QVariant();
    case Qt::DecorationRole:
        if (index.column() == IdColumn)
            return style::runColorIcon(row.id);  // the run's colour, as on the curves
        return QVariant();
    case Qt::TextAlignmentRole:
        if (index.column() == IdColumn || index.column() == DurationColumn || index.column() >= FirstMetricColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant();
    default: return QVariant();
    }
}

QString RunsTableModel::displayedId(qint64 id) { return RunDatabase::displayedRunId(id); }

QVariant RunsTableModel::displayValue(const RunSummaryRow &row, int column) const
{
    switch (column) {
    case IdColumn: return RunDatabase::isTeamCopyId(row.id) ? QVariant(displayedId(row.id)) : QVariant(row.id);
    case NameColumn: return isLearningRateTest(row) ? QStringLiteral("%1 (LR range test)").arg(row.name) : row.name;
    case StatusColumn: return statusText(row);
    case PresetColumn: return row.presetName;
    case ParentColumn: return parentShortText(row.parent);
    case CreatedColumn: return formatTime(row.createdAt);
    case StartedColumn: return formatTime(row.startedAt);
    case EndedColumn: return formatTime(row.endedAt);
    case DurationColumn: return formatDuration(row.durationSeconds());
    case TagsColumn: return row.tags.join(QStringLiteral(", "));
    case MachineColumn: return machineText(row.host);
    default: break;
    }
    bool best = false;
    const QString metric = metricOfColumn(column, &best);
    const auto it = row.keyMetrics.constFind(metric);
    if (it == row.keyMetrics.constEnd())
        return QString();
    return formatMetric(best ? it->best() : it->last);
}

QVariant RunsTableModel::sortValue(const RunSummaryRow &row, int column) const
{
    switch (column) {
    case IdColumn: return row.id;
    case NameColumn: return row.name.toLower();
    case StatusColumn: return runStatusName(row.status);
    case PresetColumn: return row.presetName.toLower();
    case ParentColumn:
        if (row.parentRunId() > 0)  // runs by number, before teammates' runs (T7) and files by name
            return QStringLiteral("#%1").arg(row.parentRunId(), 12, 10, QLatin1Char('0'));
        if (row.parentRunId() < 0)
            return QStringLiteral("#T%1").arg(-row.parentRunId(), 12, 10, QLatin1Char('0'));
        return row.parent.isEmpty() ? QVariant() : QVariant(parentShortText(row.parent).toLower());
    case CreatedColumn: return timeOrNothing(row.createdAt);
    case StartedColumn: return timeOrNothing(row.startedAt);
    case EndedColumn: return timeOrNothing(row.endedAt);
    case DurationColumn: return numberOrNothing(row.durationSeconds());
    case TagsColumn: return row.tags.isEmpty() ? QVariant() : QVariant(row.tags.join(QLatin1Char(',')).toLower());
    case MachineColumn: return row.host.isEmpty() ? QVariant() : QVariant(row.host.toLower());
    default: break;
    }
    bool best = false;
    const QString metric = metricOfColumn(column, &best);
    const auto it = row.keyMetrics.constFind(metric);
    return it == row.keyMetrics.constEnd() ? QVariant() : numberOrNothing(best ? it->best() : it->last);
}

void RunsTableModel::setPausedRuns(const QSet<qint64> &ids)
{
    if (ids == m_paused)
        return;
    const QSet<qint64> changed = (ids - m_paused) + (m_paused - ids);
    m_paused = ids;
    for (qint64 id : changed)
        if (const int row = rowOfRun(id); row >= 0)
            Q_EMIT dataChanged(index(row, StatusColumn), index(row, StatusColumn));
}

bool RunsTableModel::updateSuspendedRuns()
{
    QSet<qint64> suspended;
    for (const RunSummaryRow &row : m_rows)
        if (row.status == RunStatus::Running && runProcessIsSuspended(row.host, row.pid))
            suspended.insert(row.id);
    if (suspended == m_suspended)
        return false;
    const QSet<qint64> changed = (suspended - m_suspended) + (m_suspended - suspended);
    m_suspended = suspended;
    for (qint64 id : changed)
        if (const int row = rowOfRun(id); row >= 0)
            Q_EMIT dataChanged(index(row, StatusColumn), index(row, StatusColumn));
    return true;
}

QString RunsTableModel::statusText(const RunSummaryRow &row) const
{
    if (row.status == RunStatus::Running && (m_paused.contains(row.id) || m_suspended.contains(row.id)))
        return QStringLiteral("paused");
    return runStatusName(row.status);
}

QString RunsTableModel::formatDuration(double seconds) { return durationText(seconds); }

QString RunsTableModel::formatMetric(double value)
{
    return std::isnan(value) ? QString() : QString::number(value, 'g', 4);
}

QStringList RunsTableModel::allTags() const
{
    QSet<QString> tags;
    for (const RunSummaryRow &row : m_rows)
        for (const QString &tag : row.tags)
            tags.insert(tag);
    QStringList sorted(tags.begin(), tags.end());
    std::sort(sorted.begin(), sorted.end(),
              [](const QString &a, const QString &b) { return a.compare(b, Qt::CaseInsensitive) < 0; });
    return sorted;
}

void RunsTableModel::fail(const Error &error)
{
    m_lastError = error.toString();
    Q_EMIT errorOccurred(m_lastError);
}

} // namespace ty
