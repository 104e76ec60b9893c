#pragma once
// Experiments ▸ Queue: the run database's limit on runs trained at once, and the runs, resumes and sweep trials
// waiting for a slot, in order, with Move Up, Move Down, Start Now and Cancel (docs/sweeps.md#the-run-queue).
// The processes that wait read these requests from the database, so a run queued in a terminal is reordered,
// started or cancelled from here the same way. Reread every second.
//
// Ownership: owns its widgets and its own database connection. Thread affinity: the GUI thread.

#include "error.h"
#include "run_records.h"

#include <QWidget>

#include <memory>

class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace ty {

class RunDatabase;

class RunQueueView : public QWidget {
    Q_OBJECT
public:
    explicit RunQueueView(QWidget *parent = nullptr);
    ~RunQueueView() override;

    Status openDatabase(const QString &path);
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

    std::unique_ptr<RunDatabase> m_db;
    QList<QueueEntry> m_entries;
    int m_waiting = -1;
    QSpinBox *m_limit;
    QLabel *m_summary;
    QTableWidget *m_table;
    QPushButton *m_up, *m_down, *m_startNow, *m_cancel;
};

} // namespace ty
