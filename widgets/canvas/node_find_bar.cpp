#include "node_find_bar.h"

#include "canvas_view.h"
#include "document/pipeline_document.h"
#include "pipeline_scene.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>

namespace ty {

QStringList findNodes(const PipelineDocument &document, const QString &text)
{
    QStringList ids;
    const QString wanted = text.trimmed();
    if (wanted.isEmpty())
        return ids;
    for (const Node &node : document.graph().nodes)
        if (node.id.contains(wanted, Qt::CaseInsensitive) || node.block.contains(wanted, Qt::CaseInsensitive))
            ids << node.id;
    return ids;
}

NodeFindBar::NodeFindBar(CanvasView *view)
    : QFrame(view), m_view(view), m_viewport(view->viewport()), m_field(new QLineEdit(this)), m_count(new QLabel(this))
{
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    m_field->setPlaceholderText(tr("Find a node by id or block"));
    m_field->setClearButtonEnabled(true);
    m_field->setMinimumWidth(220);
    m_field->installEventFilter(this);
    layout->addWidget(m_field);
    layout->addWidget(m_count);
    connect(m_field, &QLineEdit::textChanged, this, [this] {
        m_current.clear();
        updateCount();
    });
    connect(m_field, &QLineEdit::returnPressed, this, &NodeFindBar::findNext);
    m_viewport->installEventFilter(this);  // stays in the corner when the view is resized
    hide();
}

void NodeFindBar::open()
{
    if (!m_view->isVisible())
        return;  // Ctrl+F in another mode of the window
    place();
    show();
    raise();
    m_field->setFocus(Qt::ShortcutFocusReason);
    m_field->selectAll();
    updateCount();
}

void NodeFindBar::findNext()
{
    const QStringList matches = findNodes(*m_view->pipelineScene()->document(), m_field->text());
    if (matches.isEmpty()) {
        m_current.clear();
        updateCount();
        return;
    }
    const qsizetype at = matches.indexOf(m_current);
    m_current = matches.at((at + 1) % matches.size());  // after the last, the first again
    m_view->pipelineScene()->document()->setSelectedNodes({m_current});
    m_view->centerOnNode(m_current);
    updateCount();
}

void NodeFindBar::updateCount()
{
    const QStringList matches = findNodes(*m_view->pipelineScene()->document(), m_field->text());
    if (m_field->text().trimmed().isEmpty())
        m_count->clear();
    else if (matches.isEmpty())
        m_count->setText(tr("no match"));
    else if (m_current.isEmpty())
        m_count->setText(tr("%n match(es)", nullptr, int(matches.size())));
    else
        m_count->setText(tr("%1 of %2").arg(matches.indexOf(m_current) + 1).arg(matches.size()));
    adjustSize();
    place();
}

void NodeFindBar::place()
{
    adjustSize();
    move(m_viewport->width() - width() - 12, 12);
}

bool NodeFindBar::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_field && event->type() == QEvent::KeyPress
        && static_cast<QKeyEvent *>(event)->key() == Qt::Key_Escape) {
        hide();
        m_view->setFocus();
        return true;
    }
    if (watched == m_viewport && event->type() == QEvent::Resize && isVisible())
        place();
    return QFrame::eventFilter(watched, event);
}

} // namespace ty
