#pragma once
// A table of the runs in a run database, one row per run, newest first (RunDatabase::runSummaries): id, name,
// status, preset, the run or file it started from ("#12", with the checkpoint and sha256 as tooltip), created,
// started, ended, duration, tags, the machine it trains or trained on ("(this machine)" after this host's name; the
// run browser shows that column for the team's runs), and the best and last value of each key metric.
// Rows load lazily, a page at a time (canFetchMore/fetchMore, as views ask while scrolling); fetchAll() loads
// the rest (RunsFilterProxyModel calls it before filtering or sorting). refresh() is the cheap poll: when the
// database's change stamp moved, it adds new runs at the top, rereads the queued and running ones, and reloads
// when runs were deleted elsewhere; otherwise it costs two index-only queries.
//
// Ownership and threads: the database is not owned and must outlive the model (or be unset first); GUI thread.

#include "run_database.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QSet>

#include <algorithm>

namespace ty {

class RunsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { IdColumn, NameColumn, StatusColumn, PresetColumn, ParentColumn, CreatedColumn, StartedColumn,
                  EndedColumn, DurationColumn, TagsColumn, MachineColumn, FirstMetricColumn };
    enum Role {
        SortRole = Qt::UserRole + 1,  // numbers, times and lowercase text; invalid QVariant when there is no value
        RunIdRole,
        StatusRole,                   // int(RunStatus)
        TagsRole,                     // QStringList
        ParentRunIdRole,              // the run it started from (init_from), 0 when none
    };
    static constexpr int kDefaultPageSize = 500;

    explicit RunsTableModel(QObject *parent = nullptr);

    // Shows the runs of `db` (nullptr: none). Loads the first page.
    void setDatabase(RunDatabase *db);
    RunDatabase *database() const { return m_db; }
    void setPageSize(int rows) { m_pageSize = std::max(1, rows); }
    // "T7" for the team copy's run -7 in the Both view (RunDatabase::attachTeamCopy), else the id.
    static QString displayedId(qint64 id);
    // False for a read-only copy (the team's runs): the name cell is not editable. Never editable: a copied run
    // of the Both view (a negative id).
    void setEditable(bool editable) { m_editable = editable; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    // The name cell is editable: setData renames the run (an empty name is refused, and nothing changes).
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex &parent = {}) const override;
    void fetchMore(const QModelIndex &parent = {}) override;
    void fetchAll();

    // The poll (call about once a second). Returns true when rows were added, changed or removed.
    bool refresh();
    // The same with the stamp read just now by the caller (the run database watcher's), instead of reading it.
    bool refresh(const RunsChangeStamp &current);
    // Everything again (as many rows as were loaded, at least a page).
    void reload();

    const RunSummaryRow &runAt(int row) const { return m_rows.at(row); }
    int rowOfRun(qint64 id) const { return m_rowOfId.value(id, -1); }
    QStringList allTags() const;      // over the loaded rows, sorted
    QString lastError() const { return m_lastError; }
    // Why the list could not be read the last time it was (a damaged database, a lost file); empty after a
    // read that worked. Unlike an edit's error it means the table may be missing runs.
    QString loadError() const { return m_loadError; }

    // Runs whose worker this app has paused (SIGSTOP): the database still says running, the status column says
    // "paused".
    void setPausedRuns(const QSet<qint64> &ids);
    bool isPaused(qint64 id) const { return m_paused.contains(id) || m_suspended.contains(id); }
    // Looks again which running runs' processes are suspended on this host (Ctrl-Z in a terminal): they show
    // "paused" too. True when that changed. Called on every poll of the run browser.
    bool updateSuspendedRuns();
    QString statusText(const RunSummaryRow &row) const;

    // Edits go to the database, then the row is read back. Errors come back and are also emitted.
    Status setNotes(qint64 id, const QString &notes);
    Status setTags(qint64 id, const QStringList &tags);
    Status renameRun(qint64 id, const QString &name);
    // Deletes the run's record and its folder (only a folder inside the database's own runs/ folder).
    Status deleteRun(qint64 id);

    static QString formatDuration(double seconds);  // "0:42", "1:02:03"; "" for NaN
    static QString formatMetric(double value);       // 4 significant digits; "" for NaN

Q_SIGNALS:
    void errorOccurred(const QString &message);
    void loadErrorChanged(const QString &message);  // empty when reading works again
    void tagsChanged();

private:
    QVariant displayValue(const RunSummaryRow &row, int column) const;
    QVariant sortValue(const RunSummaryRow &row, int column) const;
    void appendRows(const QList<RunSummaryRow> &rows);
    void updateRows(const QList<RunSummaryRow> &rows);
    void reindex();
    Status refreshRun(qint64 id);
    void fail(const Error &error);
    void setLoadError(const QString &message);

    RunDatabase *m_db = nullptr;
    QList<RunSummaryRow> m_rows;
    QHash<qint64, int> m_rowOfId;
    RunsChangeStamp m_stamp;
    qint64 m_maxLoadedId = 0;
    qint64 m_minLoadedId = 0;
    bool m_exhausted = true;
    bool m_changing = false;  // inside begin/end of a reset or insertion
    int m_pageSize = kDefaultPageSize;
    bool m_editable = true;
    QString m_lastError;
    QString m_loadError;
    QSet<qint64> m_paused;     // paused by this app
    QSet<qint64> m_suspended;  // suspended elsewhere, seen in the process table
};

} // namespace ty
