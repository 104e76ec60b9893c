#pragma once
// The Evaluate view's Curves tab: an evaluation's one-vs-rest ROC curves (with the chance diagonal) and
// precision-recall curves side by side, read from the stored evaluation (core/evaluation/classifier_curves.h).
// "All classes" draws every class in its own colour, with the macro ROC AUC and average precision in the plots'
// titles and each class's area in the legend (up to kMaxLegendClasses classes); choosing one class draws it alone,
// over the others in faint grey. Colours of axes, grid, text and legend follow the widget's palette, light or dark.
//
// GUI thread only.

#include "classifier_curves.h"

#include <QWidget>

class QComboBox;
class QCPCurve;
class QCPTextElement;
class QCustomPlot;
class QLabel;

namespace ty {

class ClassifierCurvesView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxLegendClasses = 12;

    explicit ClassifierCurvesView(QWidget *parent = nullptr);

    void setCurves(const ClassifierCurves &curves);
    // -1: every class; else the class of that index.
    void showClass(int index);
    int shownClass() const { return m_shown; }

    QComboBox *classChooser() const { return m_chooser; }
    QCustomPlot *rocPlot() const { return m_roc; }
    QCustomPlot *precisionRecallPlot() const { return m_pr; }
    QLabel *summary() const { return m_summary; }
    QString rocTitle() const;
    QStringList legendTexts(const QCustomPlot *plot) const;  // the legend's item names, in order

protected:
    void changeEvent(QEvent *event) override;

private:
    void rebuild();
    void applyPalette();
    QString summaryText() const;
    QCPCurve *addCurve(QCustomPlot *plot, const CurvePoints &points, const QColor &colour, double width);

    ClassifierCurves m_curves;
    int m_shown = -1;
    QComboBox *m_chooser = nullptr;
    QLabel *m_summary = nullptr;
    QCustomPlot *m_roc = nullptr, *m_pr = nullptr;
    QCPTextElement *m_rocTitle = nullptr, *m_prTitle = nullptr;
};

} // namespace ty
