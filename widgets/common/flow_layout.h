#pragma once
// A layout that places its widgets left to right and starts a new line when the next one does not fit, like
// words in a paragraph: a row of buttons that stays whole in a narrow window instead of clipping its labels.
// It reports the height it needs for a width (heightForWidth), so the parent layout gives it its lines.

#include <QLayout>
#include <QList>

namespace ty {

class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget *parent = nullptr, int spacing = -1);
    ~FlowLayout() override;

    void addItem(QLayoutItem *item) override;
    int count() const override;
    QLayoutItem *itemAt(int index) const override;
    QLayoutItem *takeAt(int index) override;

    Qt::Orientations expandingDirections() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;
    QSize minimumSize() const override;
    QSize sizeHint() const override;
    void setGeometry(const QRect &rect) override;

private:
    int spacingBetween() const;
    // Places the items in `rect` (only measures when `apply` is false); returns the height used.
    int arrange(const QRect &rect, bool apply) const;

    QList<QLayoutItem *> m_items;
    int m_spacing;
};

} // namespace ty
