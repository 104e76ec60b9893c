#pragma once
// Small label and layout helpers shared by the inspector's pages (internal to widgets/inspector).

#include "common/canvas_style.h"

#include <QFont>
#include <QFrame>
#include <QLabel>
#include <QScrollArea>

namespace ty::inspector {

inline QLabel *sectionLabel(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    QFont font = label->font();
    font.setBold(true);
    label->setFont(font);
    label->setContentsMargins(0, 10, 0, 2);
    return label;
}

inline QLabel *mutedLabel(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setWordWrap(true);
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, style::mutedText(parent->palette()));
    label->setPalette(palette);
    return label;
}

inline QLabel *errorLabel(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setWordWrap(true);
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, style::errorColor());
    label->setPalette(palette);
    label->hide();
    return label;
}

inline QScrollArea *scrolling(QWidget *content, QWidget *parent)
{
    auto *area = new QScrollArea(parent);
    area->setWidget(content);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return area;
}

} // namespace ty::inspector
