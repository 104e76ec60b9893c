#pragma once
// What dropped files were classified as: for every classified input (an image, a sample of an IDX file, a CSV
// row) its name, a thumbnail when it is an image, and horizontal bars of its most probable classes, most probable
// first. Inputs are laid out in as many columns as the width holds, each class name whole where the column has
// room for it. The height follows the content (sizeHint), so the widget belongs in a scroll area.
// GUI thread only.

#include <QImage>
#include <QList>
#include <QPair>
#include <QString>
#include <QWidget>

namespace ty {

// One input and its top classes (class name, probability), in the order given.
struct ClassifiedInput {
    QString title;  // the input's name: "shoe.png", "two.idx[1]", "rows.csv line 3"
    QList<QPair<QString, double>> bars;
    QImage thumbnail;  // null unless the input is an image file
};

// Reads `trainyard-cli predict --json` output: one JSON object per line, each with "input" and "top" (class,
// probability). A line without "top" (a regression) gives an input without bars, its "values" in the title.
QList<ClassifiedInput> classifiedInputsFromJsonLines(const QByteArray &output);

class ProbabilityBars : public QWidget {
    Q_OBJECT
public:
    static constexpr int kThumbnailSide = 56;
    static constexpr int kMinimumColumnWidth = 300;

    explicit ProbabilityBars(QWidget *parent = nullptr);
    // Replaces what is shown; `note` goes under the inputs (e.g. how many more there were).
    void setInputs(const QList<ClassifiedInput> &inputs, const QString &note = QString());
    void setMessage(const QString &message);  // instead of bars: a hint, a progress note or an error
    const QList<ClassifiedInput> &inputs() const { return m_inputs; }
    QString message() const { return m_message; }
    QString note() const { return m_note; }

    // Where the layout puts things at the current width (the tests read them): how many columns, the rectangle of
    // input `input`, the bar of its `row`-th class, and the class name as drawn there (elided only when the
    // column is too narrow for it).
    int columnCount() const;
    QRect inputRect(int input) const;
    QRect barRect(int input, int row) const;
    QString shownLabel(int input, int row) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    int lineHeight() const;
    int inputHeight(const ClassifiedInput &input) const;
    int rowHeight(int firstInput, int columns) const;  // the tallest input of the row
    int columnsFor(int width) const;
    int labelWidth(int input, int columnWidth) const;
    QRect barsArea(int input) const;  // right of the thumbnail, under the title

    QList<ClassifiedInput> m_inputs;
    QString m_message, m_note;
};

} // namespace ty
