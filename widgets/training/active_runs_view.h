#pragma once
// The runs this app is training: one row per TrainingRunController (run, state, epoch, step, ETA, last
// metrics, or the outcome with its message; a square of the run's colour) and buttons to pause, continue and
// stop the selected one. The owner drops ended rows when the next run starts. A failed row's tooltip holds the whole message; double-clicking a row whose error names
// a node asks to show that node.
//
// Ownership and threads: controllers are not owned (TrainingPanel owns them); a row goes when its controller
// is destroyed. GUI thread.

#include <QList>
#include <QWidget>

class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace ty {

class TrainingRunController;

class ActiveRunsView : public QWidget {
    Q_OBJECT
public:
    explicit ActiveRunsView(QWidget *parent = nullptr);

    void addController(TrainingRunController *controller);
    QList<TrainingRunController *> controllers() const;
    TrainingRunController *selectedController() const;
    QTreeWidget *tree() const { return m_tree; }

Q_SIGNALS:
    void selectionChanged();
    void nodeActivated(const QString &nodeId, const QString &message);

private:
    QTreeWidgetItem *itemOf(TrainingRunController *controller) const;
    void updateRow(TrainingRunController *controller);
    void updateButtons();

    QTreeWidget *m_tree;
    QPushButton *m_pause;
    QPushButton *m_continue;
    QPushButton *m_stop;
};

} // namespace ty
