#pragma once
// The confusion matrix of an evaluation as a heat map: rows are true classes, columns predicted classes, each
// cell coloured by its share of the row (so a rare class reads as clearly as a common one) and labelled with its
// count and that share. Clicking a cell selects it (cellActivated); the diagonal is drawn in green hues, the
// mistakes in red ones, both deepening from the palette's base colour (so an empty cell is the background in a
// light and a dark scheme alike, and the matrix follows a change of scheme).
//
// GUI thread only; owns nothing but its copy of the matrix.

#include <QStringList>
#include <QWidget>

#include <vector>

namespace ty {

class ConfusionMatrixView : public QWidget {
    Q_OBJECT
public:
    explicit ConfusionMatrixView(QWidget *parent = nullptr);

    // `counts`: classes x classes, row-major (rows true). Clears the selection.
    void setMatrix(const QStringList &classes, const std::vector<qint64> &counts);
    int classCount() const { return int(m_classes.size()); }
    qint64 count(int trueClass, int predictedClass) const;
    double rowShare(int trueClass, int predictedClass) const;  // of the row's samples, 0 for an empty row

    // The cell under a widget position, or (-1, -1).
    QPoint cellAt(const QPoint &position) const;
    QRect cellRect(int trueClass, int predictedClass) const;
    QColor cellColor(int trueClass, int predictedClass) const;  // as painted: from the palette's base colour
    QPoint selectedCell() const { return m_selected; }  // (predicted, true) as x, y; (-1, -1) when none
    void selectCell(int trueClass, int predictedClass);

    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void cellActivated(int trueClass, int predictedClass);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;

private:
    QRect gridRect() const;
    int labelWidth() const;

    QStringList m_classes;
    std::vector<qint64> m_counts;
    std::vector<qint64> m_rowTotals;
    QPoint m_selected{-1, -1};
    QPoint m_hovered{-1, -1};
};

} // namespace ty
