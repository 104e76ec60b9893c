#include "confusion_matrix_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace ty {

namespace {

constexpr int kMargin = 6;
constexpr int kHeaderHeight = 18;  // "predicted" above the columns

// The background (the palette's base: white in a light scheme, near black in a dark one) for 0, deepening with
// the share towards green on the diagonal and red off it.
QColor cellColour(double share, bool diagonal, const QColor &background)
{
    const double t = std::clamp(share, 0.0, 1.0);
    const QColor full = diagonal ? QColor(46, 139, 87) : QColor(200, 50, 50);
    const double strength = diagonal ? t : std::sqrt(t);  // small mistakes must still show
    auto mix = [strength](int from, int to) { return int(from + (to - from) * strength); };
    return QColor(mix(background.red(), full.red()), mix(background.green(), full.green()), mix(background.blue(), full.blue()));
}

} // namespace

ConfusionMatrixView::ConfusionMatrixView(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setAccessibleName(tr("Confusion matrix"));
}

void ConfusionMatrixView::setMatrix(const QStringList &classes, const std::vector<qint64> &counts)
{
    m_classes = classes;
    const size_t n = size_t(classes.size());
    m_counts = counts.size() == n * n ? counts : std::vector<qint64>(n * n, 0);
    m_rowTotals.assign(n, 0);
    for (size_t t = 0; t < n; ++t)
        for (size_t p = 0; p < n; ++p)
            m_rowTotals[t] += m_counts[t * n + p];
    m_selected = m_hovered = QPoint(-1, -1);
    updateGeometry();
    update();
}

qint64 ConfusionMatrixView::count(int trueClass, int predictedClass) const
{
    const int n = classCount();
    if (trueClass < 0 || predictedClass < 0 || trueClass >= n || predictedClass >= n)
        return 0;
    return m_counts[size_t(trueClass * n + predictedClass)];
}

double ConfusionMatrixView::rowShare(int trueClass, int predictedClass) const
{
    if (trueClass < 0 || trueClass >= classCount() || m_rowTotals[size_t(trueClass)] == 0)
        return 0;
    return double(count(trueClass, predictedClass)) / double(m_rowTotals[size_t(trueClass)]);
}

int ConfusionMatrixView::labelWidth() const
{
    int width = fontMetrics().horizontalAdvance(tr("true"));
    for (int c = 0; c < m_classes.size(); ++c)
        width = std::max(width, fontMetrics().horizontalAdvance(QStringLiteral("%1  %2").arg(m_classes[c]).arg(c)));
    return std::min(width + 6, 200) + 2 * kMargin;
}

QRect ConfusionMatrixView::gridRect() const
{
    const int n = std::max(1, classCount());
    const int left = labelWidth();
    const int top = kHeaderHeight + fontMetrics().height() + kMargin;
    const int side = std::max(n * 12, std::min(width() - left - kMargin, height() - top - kMargin));
    const int cell = side / n;
    return QRect(left, top, cell * n, cell * n);
}

QRect ConfusionMatrixView::cellRect(int trueClass, int predictedClass) const
{
    const QRect grid = gridRect();
    const int cell = grid.width() / std::max(1, classCount());
    return QRect(grid.left() + predictedClass * cell, grid.top() + trueClass * cell, cell, cell);
}

QPoint ConfusionMatrixView::cellAt(const QPoint &position) const
{
    const QRect grid = gridRect();
    if (classCount() == 0 || !grid.contains(position))
        return QPoint(-1, -1);
    const int cell = grid.width() / classCount();
    return QPoint((position.x() - grid.left()) / cell, (position.y() - grid.top()) / cell);
}

QColor ConfusionMatrixView::cellColor(int trueClass, int predictedClass) const
{
    return cellColour(rowShare(trueClass, predictedClass), trueClass == predictedClass, palette().color(QPalette::Base));
}

void ConfusionMatrixView::selectCell(int trueClass, int predictedClass)
{
    if (trueClass < 0 || predictedClass < 0 || trueClass >= classCount() || predictedClass >= classCount())
        return;
    m_selected = QPoint(predictedClass, trueClass);
    update();
    Q_EMIT cellActivated(trueClass, predictedClass);
}

QSize ConfusionMatrixView::minimumSizeHint() const
{
    const int n = std::max(2, classCount());
    return QSize(labelWidth() + n * 22 + kMargin, kHeaderHeight + fontMetrics().height() + n * 22 + 2 * kMargin);
}

void ConfusionMatrixView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    const int n = classCount();
    if (n == 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, tr("No evaluation to show"));
        return;
    }
    const QRect grid = gridRect();
    const int cell = grid.width() / n;
    QFont small = font();
    small.setPointSizeF(std::max(6.0, font().pointSizeF() * std::min(1.0, cell / 48.0)));

    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRect(grid.left(), 0, grid.width(), kHeaderHeight), Qt::AlignCenter, tr("predicted class →"));
    for (int c = 0; c < n; ++c) {
        // Column headers: the class index (names are on the rows; the tooltip names both).
        painter.drawText(QRect(grid.left() + c * cell, kHeaderHeight, cell, fontMetrics().height()), Qt::AlignCenter, QString::number(c));
        const QRect label(kMargin, grid.top() + c * cell, labelWidth() - 2 * kMargin, cell);
        painter.drawText(label, Qt::AlignRight | Qt::AlignVCenter,
                         fontMetrics().elidedText(QStringLiteral("%1  %2").arg(m_classes[c]).arg(c), Qt::ElideRight, label.width()));
    }
    painter.setFont(small);
    for (int t = 0; t < n; ++t)
        for (int p = 0; p < n; ++p) {
            const QRect r = cellRect(t, p);
            const double share = rowShare(t, p);
            const QColor fill = cellColor(t, p);
            painter.fillRect(r, fill);
            if (cell >= 26 && count(t, p) > 0) {
                painter.setPen(fill.lightnessF() < 0.55 ? Qt::white : Qt::black);
                const QString text = cell >= 44 ? QStringLiteral("%1\n%2%").arg(count(t, p)).arg(share * 100, 0, 'f', share < 0.1 ? 1 : 0)
                                                : QString::number(count(t, p));
                painter.drawText(r, Qt::AlignCenter, text);
            }
        }
    painter.setPen(QPen(palette().color(QPalette::Mid), 1));
    for (int i = 0; i <= n; ++i) {
        painter.drawLine(grid.left(), grid.top() + i * cell, grid.left() + n * cell, grid.top() + i * cell);
        painter.drawLine(grid.left() + i * cell, grid.top(), grid.left() + i * cell, grid.top() + n * cell);
    }
    for (const auto &[point, colour] : {std::pair{m_hovered, palette().color(QPalette::Highlight).lighter(130)},
                                        std::pair{m_selected, palette().color(QPalette::Highlight)}})
        if (point.x() >= 0) {
            painter.setPen(QPen(colour, 2.5));
            painter.drawRect(cellRect(point.y(), point.x()).adjusted(1, 1, -1, -1));
        }
}

void ConfusionMatrixView::mousePressEvent(QMouseEvent *event)
{
    const QPoint cell = cellAt(event->position().toPoint());
    if (cell.x() >= 0)
        selectCell(cell.y(), cell.x());
}

void ConfusionMatrixView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint cell = cellAt(event->position().toPoint());
    if (cell != m_hovered) {
        m_hovered = cell;
        update();
    }
    if (cell.x() >= 0)
        QToolTip::showText(event->globalPosition().toPoint(),
                           tr("true %1, predicted %2: %3 samples (%4% of %1)")
                               .arg(m_classes[cell.y()], m_classes[cell.x()])
                               .arg(count(cell.y(), cell.x()))
                               .arg(rowShare(cell.y(), cell.x()) * 100, 0, 'f', 1),
                           this, cellRect(cell.y(), cell.x()));
}

void ConfusionMatrixView::leaveEvent(QEvent *)
{
    m_hovered = QPoint(-1, -1);
    update();
}

} // namespace ty
