// RunsTableModel: edits of notes, tags and names, and deleting runs with their folders.

#include "runs_table_model.h"

#include <QDir>
#include <QFileInfo>

namespace ty {

namespace {

Error editError(const QString &message)
{
    return Error(message);
}

} // namespace

Status RunsTableModel::setNotes(qint64 id, const QString &notes)
{
    if (!m_db)
        return editError(QStringLiteral("no run database"));
    Status status = m_db->setNotes(id, notes);
    if (status.ok())
        status = refreshRun(id);
    if (!status.ok())
        fail(status.error());
    return status;
}

Status RunsTableModel::setTags(qint64 id, const QStringList &tags)
{
    if (!m_db)
        return editError(QStringLiteral("no run database"));
    Status status = m_db->setTags(id, tags);
    if (status.ok())
        status = refreshRun(id);
    if (!status.ok())
        fail(status.error());
    else
        Q_EMIT tagsChanged();
    return status;
}

Qt::ItemFlags RunsTableModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags flags = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == NameColumn && m_editable && index.row() < m_rows.size()
        && !RunDatabase::isTeamCopyId(m_rows.at(index.row()).id))
        flags |= Qt::ItemIsEditable;
    return flags;
}

bool RunsTableModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!index.isValid() || index.column() != NameColumn || role != Qt::EditRole || index.row() >= m_rows.size())
        return false;
    const RunSummaryRow &row = m_rows.at(index.row());
    const QString name = value.toString().trimmed();
    if (name.isEmpty()) {
        fail(editError(QStringLiteral("run #%1 keeps its name: a run's name cannot be empty").arg(row.id)));
        return false;
    }
    if (name == row.name)
        return true;
    return renameRun(row.id, name).ok();
}

Status RunsTableModel::renameRun(qint64 id, const QString &name)
{
    if (!m_db)
        return editError(QStringLiteral("no run database"));
    Status status = m_db->renameRun(id, name);
    if (status.ok())
        status = refreshRun(id);
    if (!status.ok())
        fail(status.error());
    return status;
}

Status RunsTableModel::deleteRun(qint64 id)
{
    if (!m_db)
        return editError(QStringLiteral("no run database"));
    const Result<RunInfo> info = m_db->run(id);
    if (!info.ok()) {
        fail(info.error());
        return info.error();
    }
    if (info.value().status == RunStatus::Running || info.value().status == RunStatus::Queued) {
        const Error error = editError(QStringLiteral("run %1 is %2: stop it before deleting it")
                                          .arg(id)
                                          .arg(runStatusName(info.value().status)));
        fail(error);
        return error;
    }
    if (Status removed = m_db->deleteRun(id); !removed.ok()) {
        fail(removed.error());
        return removed;
    }
    // The folder goes too, but only the run's own folder inside the database's runs/ folder: a path stored in
    // the database is never trusted to point somewhere safe to delete.
    const QString expected = QFileInfo(m_db->runFolder(id)).absoluteFilePath();
    Status status = Status::success();
    if (QFileInfo(info.value().folder).absoluteFilePath() == expected && QFileInfo(expected).isDir()) {
        if (!QDir(expected).removeRecursively())
            status = editError(QStringLiteral("run %1 was deleted, but its folder %2 could not be removed entirely")
                                   .arg(id)
                                   .arg(expected));
    }
    const int row = rowOfRun(id);
    if (row >= 0) {
        beginRemoveRows(QModelIndex(), row, row);
        m_rows.removeAt(row);
        reindex();
        endRemoveRows();
    }
    --m_stamp.count;  // our own deletion is no reason to reload at the next refresh()
    if (!status.ok())
        fail(status.error());
    Q_EMIT tagsChanged();
    return status;
}

} // namespace ty
