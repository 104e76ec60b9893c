#include "runs_filter_proxy_model.h"

#include "run_database.h"
#include "runs_table_model.h"

#include <QDateTime>

namespace ty {

RunsFilterProxyModel::RunsFilterProxyModel(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(RunsTableModel::SortRole);
    setDynamicSortFilter(true);
}

void RunsFilterProxyModel::setRunsModel(RunsTableModel *model)
{
    m_runs = model;
    setSourceModel(model);
}

void RunsFilterProxyModel::setTextFilter(const QString &text)
{
    const QStringList words = text.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (words == m_words)
        return;
    m_words = words;
    filtersChanged();
}

void RunsFilterProxyModel::setStatusFilter(const QList<RunStatus> &statuses)
{
    if (statuses == m_statuses)
        return;
    m_statuses = statuses;
    filtersChanged();
}

void RunsFilterProxyModel::setTagFilter(const QString &tag)
{
    if (tag.trimmed() == m_tag)
        return;
    m_tag = tag.trimmed();
    filtersChanged();
}

void RunsFilterProxyModel::filtersChanged()
{
    if (m_runs && isFiltering())
        m_runs->fetchAll();
    // A whole new mapping (one layout change) rather than invalidateFilter(): that removes and inserts the rows
    // range by range, and views (their headers) pay for every range, which for thousands of runs is slower.
    invalidate();
}

void RunsFilterProxyModel::sort(int column, Qt::SortOrder order)
{
    // Newest first is the order pages load in; any other order needs every row.
    const bool naturalOrder = column < 0 || (column == RunsTableModel::IdColumn && order == Qt::DescendingOrder);
    if (m_runs && !naturalOrder)
        m_runs->fetchAll();
    QSortFilterProxyModel::sort(column, order);
}

qint64 RunsFilterProxyModel::runIdAt(int proxyRow) const
{
    return data(index(proxyRow, 0), RunsTableModel::RunIdRole).toLongLong();
}

void RunsFilterProxyModel::setTeamIds(bool teamIds)
{
    if (teamIds == m_teamIds)
        return;
    m_teamIds = teamIds;
    if (!m_words.isEmpty())
        invalidateFilter();
}

QString RunsFilterProxyModel::plainId(QString word) const
{
    if (word.startsWith(QLatin1Char('#')))
        word.remove(0, 1);
    // A teammate's run is T12 in Both and on the command line; the Team view shows the store's 12.
    if (m_teamIds && word.size() > 1 && word.at(0).toUpper() == QLatin1Char('T') && word.at(1).isDigit())
        word.remove(0, 1);
    return word;
}

bool RunsFilterProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!m_runs || sourceParent.isValid())
        return true;
    const RunSummaryRow &row = m_runs->runAt(sourceRow);
    if (!m_statuses.isEmpty() && !m_statuses.contains(row.status))
        return false;
    if (!m_tag.isEmpty() && !row.tags.contains(m_tag, Qt::CaseInsensitive))
        return false;
    if (m_words.isEmpty())
        return true;
    const QString id = RunDatabase::displayedRunId(row.id);  // T7: a teammate's run in the Both view
    const QString status = runStatusName(row.status);
    for (const QString &word : m_words) {
        if (word.startsWith(QStringLiteral("from:"), Qt::CaseInsensitive)) {  // from:12 or from:#12: its fine-tunes
            if (row.parentRunId() == 0 || RunDatabase::displayedRunId(row.parentRunId()).compare(plainId(word.mid(5)), Qt::CaseInsensitive) != 0)
                return false;
            continue;
        }
        const bool idMatch = plainId(word).compare(id, Qt::CaseInsensitive) == 0;
        const bool found = idMatch || row.name.contains(word, Qt::CaseInsensitive)
                        || row.presetName.contains(word, Qt::CaseInsensitive) || status.contains(word, Qt::CaseInsensitive)
                        || row.notes.contains(word, Qt::CaseInsensitive)
                        || row.statusMessage.contains(word, Qt::CaseInsensitive)
                        || !row.tags.filter(word, Qt::CaseInsensitive).isEmpty();
        if (!found)
            return false;
    }
    return true;
}

bool RunsFilterProxyModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    if (m_runs && left.column() == RunsTableModel::IdColumn && sortRole() == RunsTableModel::SortRole)
        return m_runs->runAt(left.row()).id < m_runs->runAt(right.row()).id;  // the default order, without QVariants
    const QVariant a = left.data(sortRole());
    const QVariant b = right.data(sortRole());
    // Missing values sort last whichever the direction (the view reverses lessThan for descending order).
    const bool descending = sortOrder() == Qt::DescendingOrder;
    if (!a.isValid() || !b.isValid()) {
        if (a.isValid() == b.isValid())
            return left.row() > right.row();  // keep newest first among the missing
        return a.isValid() ? !descending : descending;
    }
    if (a.metaType().id() == QMetaType::QDateTime)
        return a.toDateTime() < b.toDateTime();
    if (a.metaType().id() == QMetaType::QString)
        return QString::compare(a.toString(), b.toString(), Qt::CaseInsensitive) < 0;
    if (a.metaType().id() == QMetaType::LongLong || a.metaType().id() == QMetaType::Int)
        return a.toLongLong() < b.toLongLong();
    if (a.toDouble() != b.toDouble())
        return a.toDouble() < b.toDouble();
    return left.row() > right.row();
}

} // namespace ty
