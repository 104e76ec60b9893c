#include "probability_bars.h"

#include <QPainter>

#include <algorithm>

namespace ty {

ProbabilityBars::ProbabilityBars(QWidget *parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void ProbabilityBars::setBars(const QString &title, const QList<QPair<QString, double>> &bars)
{
    m_title = title;
    m_bars = bars;
    m_message.clear();
    updateGeometry();
    update();
}

void ProbabilityBars::setMessage(const QString &message)
{
    m_message = message;
    m_bars.clear();
    m_title.clear();
    update();
}

QSize ProbabilityBars::sizeHint() const
{
    const int line = fontMetrics().height() + 6;
    return QSize(320, line * int(std::max<qsizetype>(2, m_bars.size() + 1)) + 8);
}

void ProbabilityBars::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    const int line = fontMetrics().height() + 6;
    if (!m_message.isEmpty() || m_bars.isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(6, 0, -6, 0), Qt::AlignCenter | Qt::TextWordWrap, m_message);
        return;
    }
    painter.setPen(palette().color(QPalette::Text));
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.drawText(QRect(6, 2, width() - 12, line), Qt::AlignLeft | Qt::AlignVCenter,
                     fontMetrics().elidedText(m_title, Qt::ElideMiddle, width() - 12));
    painter.setFont(font());
    int labelWidth = 0;
    for (const auto &bar : m_bars)
        labelWidth = std::max(labelWidth, fontMetrics().horizontalAdvance(bar.first));
    labelWidth = std::min(labelWidth, width() / 3) + 12;
    const int valueWidth = fontMetrics().horizontalAdvance(QStringLiteral("100.0%")) + 12;
    const int barSpace = std::max(10, width() - labelWidth - valueWidth - 6);
    for (int i = 0; i < m_bars.size(); ++i) {
        const int y = 2 + line * (i + 1);
        const double p = std::clamp(m_bars[i].second, 0.0, 1.0);
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(QRect(6, y, labelWidth - 12, line), Qt::AlignRight | Qt::AlignVCenter,
                         fontMetrics().elidedText(m_bars[i].first, Qt::ElideRight, labelWidth - 12));
        const QRect bar(labelWidth, y + 3, std::max(1, int(barSpace * p)), line - 6);
        painter.fillRect(bar, i == 0 ? palette().color(QPalette::Highlight) : palette().color(QPalette::Mid));
        painter.drawText(QRect(labelWidth + barSpace + 6, y, valueWidth, line), Qt::AlignLeft | Qt::AlignVCenter,
                         QStringLiteral("%1%").arg(p * 100, 0, 'f', 1));
    }
}

} // namespace ty
