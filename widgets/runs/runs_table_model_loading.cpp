// RunsTableModel: loading pages, the poll that follows the database, and rereading single runs.

#include "runs_table_model.h"

namespace ty {

bool RunsTableModel::canFetchMore(const QModelIndex &parent) const
{
    // Not from inside our own change notifications (views and testers ask there too).
    return !parent.isValid() && m_db && !m_exhausted && !m_changing;
}

void RunsTableModel::fetchMore(const QModelIndex &parent)
{
    if (!canFetchMore(parent))
        return;
    RunSummaryQuery query;
    query.beforeId = m_rows.isEmpty() ? 0 : m_minLoadedId;
    query.limit = m_pageSize;
    const Result<QList<RunSummaryRow>> page = m_db->runSummaries(query);
    if (!page.ok()) {
        m_exhausted = true;
        setLoadError(page.error().toString());
        return fail(page.error());
    }
    setLoadError(QString());
    m_exhausted = page.value().size() < m_pageSize;
    appendRows(page.value());
}

void RunsTableModel::fetchAll()
{
    while (canFetchMore())
        fetchMore();
}

void RunsTableModel::appendRows(const QList<RunSummaryRow> &rows)
{
    if (rows.isEmpty())
        return;
    m_changing = true;
    beginInsertRows(QModelIndex(), int(m_rows.size()), int(m_rows.size() + rows.size() - 1));
    m_rows.append(rows);
    reindex();
    endInsertRows();
    m_changing = false;
    Q_EMIT tagsChanged();
}

void RunsTableModel::reindex()
{
    m_rowOfId.clear();
    m_rowOfId.reserve(m_rows.size());
    m_maxLoadedId = 0;
    m_minLoadedId = 0;
    for (int i = 0; i < m_rows.size(); ++i) {  // ids may be negative (the team copy's, in the Both view)
        const qint64 id = m_rows.at(i).id;
        m_rowOfId.insert(id, i);
        m_maxLoadedId = i == 0 ? id : std::max(m_maxLoadedId, id);
        m_minLoadedId = i == 0 ? id : std::min(m_minLoadedId, id);
    }
}

void RunsTableModel::reload()
{
    const int wanted = std::max(m_pageSize, int(m_rows.size()));
    m_changing = true;
    beginResetModel();
    m_rows.clear();
    reindex();
    m_exhausted = m_db == nullptr;
    if (!m_db)
        setLoadError(QString());
    if (m_db) {
        // The stamp first: a change made while the rows are read shows at the next refresh().
        if (Result<RunsChangeStamp> stamp = m_db->changeStamp(); stamp.ok())
            m_stamp = stamp.value();
        RunSummaryQuery query;
        query.limit = wanted;
        const Result<QList<RunSummaryRow>> rows = m_db->runSummaries(query);
        if (rows.ok()) {
            m_rows = rows.value();
            m_exhausted = m_rows.size() < wanted;
        } else {
            m_exhausted = true;
            m_lastError = rows.error().toString();
        }
        setLoadError(rows.ok() ? QString() : rows.error().toString());
        reindex();
    }
    endResetModel();
    m_changing = false;
    Q_EMIT tagsChanged();
}

bool RunsTableModel::refresh()
{
    if (!m_db)
        return false;
    const Result<RunsChangeStamp> stamp = m_db->changeStamp();
    if (!stamp.ok()) {
        setLoadError(stamp.error().toString());
        fail(stamp.error());
        return false;
    }
    return refresh(stamp.value());
}

bool RunsTableModel::refresh(const RunsChangeStamp &current)
{
    if (!m_db || current == m_stamp)
        return false;
    const RunsChangeStamp before = m_stamp;
    m_stamp = current;

    // New runs go on top (newest first).
    RunSummaryQuery newer;
    newer.afterId = m_maxLoadedId;
    const Result<QList<RunSummaryRow>> added = m_db->runSummaries(newer);
    if (!added.ok()) {
        setLoadError(added.error().toString());
        fail(added.error());
        return false;
    }
    // Anything else that changed the count is a deletion made elsewhere: start again.
    if (m_stamp.count != before.count + added.value().size()) {
        reload();
        return true;
    }
    if (!added.value().isEmpty()) {
        m_changing = true;
        beginInsertRows(QModelIndex(), 0, int(added.value().size() - 1));
        m_rows = added.value() + m_rows;
        reindex();
        endInsertRows();
        m_changing = false;
    }
    // Reread every run that is or was active.
    RunSummaryQuery active;
    for (const RunSummaryRow &row : std::as_const(m_rows))
        if (row.status == RunStatus::Queued || row.status == RunStatus::Running)
            active.ids << row.id;
    for (const QString &id : m_stamp.activeIds.split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (m_rowOfId.contains(id.toLongLong()) && !active.ids.contains(id.toLongLong()))
            active.ids << id.toLongLong();
    if (!active.ids.isEmpty()) {
        const Result<QList<RunSummaryRow>> rows = m_db->runSummaries(active);
        if (!rows.ok()) {
            setLoadError(rows.error().toString());
            fail(rows.error());
        } else {
            updateRows(rows.value());
        }
    }
    return true;
}

void RunsTableModel::updateRows(const QList<RunSummaryRow> &rows)
{
    for (const RunSummaryRow &row : rows) {
        const int at = rowOfRun(row.id);
        if (at < 0)
            continue;
        m_rows[at] = row;
        Q_EMIT dataChanged(index(at, 0), index(at, columnCount() - 1));
    }
}

void RunsTableModel::setLoadError(const QString &message)
{
    if (message == m_loadError)
        return;
    m_loadError = message;
    Q_EMIT loadErrorChanged(message);
}

Status RunsTableModel::refreshRun(qint64 id)
{
    RunSummaryQuery query;
    query.ids = {id};
    const Result<QList<RunSummaryRow>> rows = m_db->runSummaries(query);
    if (!rows.ok())
        return rows.error();
    updateRows(rows.value());
    return Status::success();
}

} // namespace ty
