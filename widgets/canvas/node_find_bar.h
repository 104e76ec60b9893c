#pragma once
// Find a node: a small field floating in the canvas's top-right corner (Ctrl+F). Typing lists the nodes whose
// id or block type id contains the text (case-insensitive, in graph order); Enter selects the next match and
// centres the view on it, so repeated Enter cycles through them; Escape closes the field.
// Ownership: a child of its CanvasView. Thread affinity: the GUI thread.

#include <QFrame>
#include <QStringList>

class QLabel;
class QLineEdit;

namespace ty {

class CanvasView;
class PipelineDocument;

// The ids of the nodes matching `text`, in graph order (none for empty text).
QStringList findNodes(const PipelineDocument &document, const QString &text);

class NodeFindBar : public QFrame {
    Q_OBJECT
public:
    explicit NodeFindBar(CanvasView *view);

    QLineEdit *field() const { return m_field; }
    void open();  // shows the field with its text selected, focused
    QString current() const { return m_current; }  // the match Enter went to last

public Q_SLOTS:
    void findNext();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void updateCount();
    void place();

    CanvasView *m_view;
    // The view's viewport, kept: the filter sees its events also while the view is being destroyed, when calling
    // the view's members would be undefined behaviour (UBSan reported it).
    QWidget *m_viewport;
    QLineEdit *m_field;
    QLabel *m_count;
    QString m_current;
};

} // namespace ty
