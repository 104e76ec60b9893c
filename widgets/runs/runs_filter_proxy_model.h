#pragma once
// Filters and sorts a RunsTableModel: by text (every word must appear in the id, name, preset, status, tags,
// notes or status message; case-insensitive; `from:12` or `from:#12` keeps the runs started from run 12's weights;
// in the Team view, whose ids are the store's, `T12`, `#T12` and `from:T12` name the store's run 12 as Both and the
// command line do),
// by status (any of a set) and by tag; sorts by any column with
// missing values last in both directions. Filtering or sorting by anything but the newest-first order loads
// every row of the source first (RunsTableModel::fetchAll), so results are complete.
//
// Ownership and threads: the source model is not owned (QSortFilterProxyModel semantics); GUI thread.

#include "run_records.h"

#include <QList>
#include <QSortFilterProxyModel>
#include <QStringList>

namespace ty {

class RunsTableModel;

class RunsFilterProxyModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit RunsFilterProxyModel(QObject *parent = nullptr);

    void setRunsModel(RunsTableModel *model);
    RunsTableModel *runsModel() const { return m_runs; }

    void setTextFilter(const QString &text);
    QString textFilter() const { return m_words.join(QLatin1Char(' ')); }
    void setStatusFilter(const QList<RunStatus> &statuses);  // empty: every status
    QList<RunStatus> statusFilter() const { return m_statuses; }
    void setTagFilter(const QString &tag);                   // empty: any tag or none
    // The shown ids are the team store's (the Team view): a word `T12` or `#T12` names run 12.
    void setTeamIds(bool teamIds);
    QString tagFilter() const { return m_tag; }
    bool isFiltering() const { return !m_words.isEmpty() || !m_statuses.isEmpty() || !m_tag.isEmpty(); }

    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    qint64 runIdAt(int proxyRow) const;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    void filtersChanged();
    QString plainId(QString word) const;  // "12" for "#12", and for "T12" / "#T12" with team ids; else the word

    RunsTableModel *m_runs = nullptr;
    QStringList m_words;
    QList<RunStatus> m_statuses;
    QString m_tag;
    bool m_teamIds = false;
};

} // namespace ty
