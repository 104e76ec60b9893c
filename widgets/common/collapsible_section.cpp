#include "collapsible_section.h"

#include "canvas_style.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QToolButton>
#include <QVBoxLayout>

namespace ty {

CollapsibleSection::CollapsibleSection(const QString &title, QWidget *body, bool openByDefault,
                                       const QString &settingsKey, QWidget *parent)
    : QWidget(parent), m_title(title), m_settingsKey(settingsKey), m_header(new QToolButton(this)),
      m_note(new QLabel(this)), m_body(body)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 6, 0, 0);
    layout->setSpacing(2);
    auto *headerRow = new QHBoxLayout;
    headerRow->setSpacing(6);
    m_header->setText(title);
    m_header->setAutoRaise(true);
    m_header->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    QFont bold = m_header->font();
    bold.setBold(true);
    m_header->setFont(bold);
    headerRow->addWidget(m_header);
    QPalette muted = m_note->palette();
    muted.setColor(QPalette::WindowText, style::mutedText(palette()));
    m_note->setPalette(muted);
    m_note->hide();
    headerRow->addWidget(m_note);
    headerRow->addStretch(1);
    layout->addLayout(headerRow);
    m_body->setParent(this);
    layout->addWidget(m_body);

    const bool open = m_settingsKey.isEmpty() ? openByDefault : QSettings().value(m_settingsKey, openByDefault).toBool();
    apply(open);
    connect(m_header, &QToolButton::clicked, this, [this] { setOpen(!isOpen()); });
}

bool CollapsibleSection::isOpen() const
{
    return m_open;
}

void CollapsibleSection::setOpen(bool open)
{
    if (open == m_open)
        return;
    if (!m_settingsKey.isEmpty())
        QSettings().setValue(m_settingsKey, open);
    apply(open);
    Q_EMIT toggled(open);
}

void CollapsibleSection::apply(bool open)
{
    m_open = open;
    m_header->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
    m_header->setToolTip(open ? tr("Fold %1").arg(m_title) : tr("Show %1").arg(m_title));
    m_body->setVisible(open);
}

void CollapsibleSection::setNote(const QString &note)
{
    m_note->setText(note);
    m_note->setVisible(!note.isEmpty());
}

QString CollapsibleSection::note() const
{
    return m_note->text();
}

} // namespace ty
