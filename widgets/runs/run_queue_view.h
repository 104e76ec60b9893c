#pragma once
// Experiments ▸ Queue: the run database's limit on runs trained at once, and the runs, resumes and sweep trials
// waiting for a slot, in order, with Move Up, Move Down, Start Now and Cancel (docs/sweeps.md#the-run-queue).
// The processes that wait read these requests from the database, so a run queued in a terminal is reordered,
// started or cancelled from here the same way. Reread, shown or not (the tab's count stays true), on the run database
// watcher's second when something was committed since, or while entries are listed (one may have lost its process).
//
// Ownership: owns its widgets; reads and writes through the watcher's connection (not owned). Thread affinity: the
// GUI thread.

#include "error.h"
#include "run_records.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace ty {

class RunDatabase;
class RunDatabaseWatcher;

class RunQueueView : public QWidget {
    Q_OBJECT
public:
    explicit RunQueueView(QWidget *parent = nullptr);
    ~RunQueueView() override;

    // Shows the queue of the watcher's database (not owned), and of whatever it opens later.
    void setWatcher(RunDatabaseWatcher *watcher);
    RunDatabaseWatcher *watcher() const;
    void refresh();
    QList<QueueEntry> entries() const { return m_entries; }

    QSpinBox *limitBox() const { return m_limit; }
    QTableWidget *table() const { return m_table; }
    // The selected entry's id, 0 when none.
    qint64 selectedEntry() const;
    void selectEntry(qint64 id);
    // The buttons' actions, on the selected entry; false (and a message) when refused.
    bool moveSelected(int steps);
    bool startSelectedNow();
    bool cancelSelected();

Q_SIGNALS:
    void waitingCountChanged(int waiting);
    void statusMessage(const QString &message);

private:
    bool apply(const Status &status);
    void updateButtons();
    RunDatabase *database() const;

    QPointer<RunDatabaseWatcher> m_watcher;
    qint64 m_readAt = -1;  // the watcher's generation at the last reread
    QList<QueueEntry> m_entries;
    int m_waiting = -1;
    QSpinBox *m_limit;
    QLabel *m_summary;
    QTableWidget *m_table;
    QPushButton *m_up, *m_down, *m_startNow, *m_cancel;
};

} // namespace ty
