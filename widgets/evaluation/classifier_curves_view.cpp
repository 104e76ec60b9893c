#include "classifier_curves_view.h"

#include "common/canvas_style.h"
#include "common/run_colors.h"
#include "plots/plot_palette.h"
#include "plots/qcustomplot_include.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace ty {

namespace {

// The palette's hues for the first ten classes, then the same hues lighter and darker in turn.
QColor classColor(int index)
{
    const QColor base = style::runPaletteColor(index);
    const int round = index / style::runPaletteSize();
    return round == 0 ? base : round % 2 == 1 ? base.lighter(135) : base.darker(135);
}

QString figure(const std::optional<double> &value) { return value ? QString::number(*value, 'f', 4) : QStringLiteral("—"); }

QCustomPlot *makePlot(QWidget *parent, const QString &name, const QString &xLabel, const QString &yLabel, QCPTextElement **title)
{
    auto *plot = new QCustomPlot(parent);
    plot->setObjectName(name);
    plot->setMinimumSize(240, 220);
    plot->plotLayout()->insertRow(0);
    *title = new QCPTextElement(plot, QString());
    plot->plotLayout()->addElement(0, 0, *title);
    plot->xAxis->setLabel(xLabel);
    plot->yAxis->setLabel(yLabel);
    plot->xAxis->setRange(0, 1);
    plot->yAxis->setRange(0, 1.02);
    QFont legendFont = parent->font();
    legendFont.setPointSizeF(legendFont.pointSizeF() * 0.85);
    plot->legend->setFont(legendFont);
    plot->legend->setBorderPen(Qt::NoPen);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    return plot;
}

} // namespace

ClassifierCurvesView::ClassifierCurvesView(QWidget *parent) : QWidget(parent)
{
    m_chooser = new QComboBox(this);
    m_chooser->setObjectName(QStringLiteral("curvesClassChooser"));
    m_chooser->setMinimumContentsLength(20);
    m_chooser->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_roc = makePlot(this, QStringLiteral("rocPlot"), tr("False positive rate"), tr("True positive rate"), &m_rocTitle);
    m_pr = makePlot(this, QStringLiteral("precisionRecallPlot"), tr("Recall"), tr("Precision"), &m_prTitle);
    m_pr->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignLeft);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Class"), this));
    top->addWidget(m_chooser);
    top->addWidget(m_summary, 1);
    auto *plots = new QHBoxLayout;
    plots->addWidget(m_roc, 1);
    plots->addWidget(m_pr, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(top);
    layout->addLayout(plots, 1);

    connect(m_chooser, &QComboBox::activated, this, [this](int row) { showClass(m_chooser->itemData(row).toInt()); });
    applyPalette();
    rebuild();
}

void ClassifierCurvesView::setCurves(const ClassifierCurves &curves)
{
    m_curves = curves;
    m_chooser->clear();
    m_chooser->addItem(tr("All classes"), -1);
    for (const ClassCurves &c : std::as_const(m_curves.perClass))
        m_chooser->addItem(c.rocAuc ? tr("%1  (AUC %2)").arg(c.name, figure(c.rocAuc)) : tr("%1  (no AUC)").arg(c.name), c.index);
    for (int row = 1; row < m_chooser->count(); ++row)
        m_chooser->setItemData(row, classColor(row - 1), Qt::DecorationRole);
    m_chooser->setEnabled(!m_curves.empty());
    m_shown = -1;
    rebuild();
}

QString ClassifierCurvesView::summaryText() const
{
    if (m_curves.empty())
        return tr("This evaluation has no curves: it was stored before Trainyard drew them. "
                  "`trainyard-cli evaluate RUN` evaluates the run again.");
    if (m_shown >= 0 && !m_curves.perClass[m_shown].reason.isEmpty())
        return m_curves.perClass[m_shown].reason;
    QString text = m_curves.binary
        ? tr("ROC AUC %1 · average precision %2 (class \"%3\" against \"%4\")")
              .arg(figure(m_curves.rocAuc), figure(m_curves.averagePrecision), m_curves.perClass.value(1).name, m_curves.perClass.value(0).name)
        : tr("ROC AUC %1 · average precision %2 (one-vs-rest, macro over %3 classes)")
              .arg(figure(m_curves.rocAuc), figure(m_curves.averagePrecision)).arg(m_curves.averagedClasses);
    if (!m_curves.note.isEmpty())
        text += QStringLiteral(" · ") + m_curves.note;
    return text;
}

void ClassifierCurvesView::showClass(int index)
{
    m_shown = index >= 0 && index < m_curves.perClass.size() ? index : -1;
    m_chooser->setCurrentIndex(std::max(0, m_chooser->findData(m_shown)));
    rebuild();
}

QString ClassifierCurvesView::rocTitle() const { return m_rocTitle->text(); }

QStringList ClassifierCurvesView::legendTexts(const QCustomPlot *plot) const
{
    QStringList out;
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        if (auto *item = qobject_cast<QCPPlottableLegendItem *>(plot->legend->item(i)))
            out << item->plottable()->name();
    return out;
}

QCPCurve *ClassifierCurvesView::addCurve(QCustomPlot *plot, const CurvePoints &points, const QColor &colour, double width)
{
    // A parametric curve: points in their order, so that the vertical steps of a ROC curve keep theirs.
    auto *curve = new QCPCurve(plot->xAxis, plot->yAxis);
    curve->setData(QVector<double>(points.x.begin(), points.x.end()), QVector<double>(points.y.begin(), points.y.end()));
    curve->setPen(QPen(colour, width));
    curve->setAntialiased(true);
    return curve;
}

void ClassifierCurvesView::rebuild()
{
    if (!m_roc)
        return;  // a palette change while the constructor runs: the constructor rebuilds at its end
    const QColor text = palette().color(QPalette::Text);
    for (QCustomPlot *plot : {m_roc, m_pr}) {
        plot->clearPlottables();
        plot->legend->setVisible(false);
    }
    // Chance: the diagonal of a ROC plot.
    QCPCurve *chance = addCurve(m_roc, CurvePoints{{0, 1}, {0, 1}}, withAlpha(text, 0.35), 1);
    chance->setPen(QPen(withAlpha(text, 0.35), 1, Qt::DashLine));
    chance->setName(tr("chance"));
    chance->removeFromLegend();
    const bool all = m_shown < 0;
    const bool legend = !all || m_curves.perClass.size() <= kMaxLegendClasses;
    // The others first, faint, so that the chosen class is drawn over them.
    for (const ClassCurves &c : std::as_const(m_curves.perClass)) {
        if (all || c.index == m_shown)
            continue;
        for (QCustomPlot *plot : {m_roc, m_pr})
            addCurve(plot, plot == m_roc ? c.roc : c.precisionRecall, withAlpha(text, 0.12), 1)->removeFromLegend();
    }
    for (const ClassCurves &c : std::as_const(m_curves.perClass)) {
        if (!all && c.index != m_shown)
            continue;
        const QColor colour = classColor(c.index);
        const double width = all ? 1.5 : 2.5;
        QCPCurve *roc = addCurve(m_roc, c.roc, colour, width);
        roc->setName(c.rocAuc ? tr("%1  AUC %2").arg(c.name, figure(c.rocAuc)) : tr("%1  no AUC").arg(c.name));
        QCPCurve *pr = addCurve(m_pr, c.precisionRecall, colour, width);
        pr->setName(c.averagePrecision ? tr("%1  AP %2").arg(c.name, figure(c.averagePrecision)) : tr("%1  no AP").arg(c.name));
        if (!legend) {
            roc->removeFromLegend();
            pr->removeFromLegend();
        }
    }
    for (QCustomPlot *plot : {m_roc, m_pr})
        plot->legend->setVisible(legend && plot->legend->itemCount() > 0);
    if (m_curves.empty()) {
        m_rocTitle->setText(tr("ROC"));
        m_prTitle->setText(tr("Precision-recall"));
    } else if (all) {
        const QString average = m_curves.binary ? tr("class \"%1\"").arg(m_curves.perClass.value(1).name) : tr("macro");
        m_rocTitle->setText(tr("ROC · %1 AUC %2").arg(average, figure(m_curves.rocAuc)));
        m_prTitle->setText(tr("Precision-recall · %1 AP %2").arg(average, figure(m_curves.averagePrecision)));
    } else {
        const ClassCurves &c = m_curves.perClass[m_shown];
        m_rocTitle->setText(tr("ROC · %1 against the rest · AUC %2").arg(c.name, figure(c.rocAuc)));
        m_prTitle->setText(tr("Precision-recall · %1 · AP %2").arg(c.name, figure(c.averagePrecision)));
    }
    m_summary->setText(summaryText());
    m_roc->replot();
    m_pr->replot();
}

void ClassifierCurvesView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        applyPalette();
        rebuild();  // the diagonal and the faint curves take the text colour
    }
}

void ClassifierCurvesView::applyPalette()
{
    if (!m_roc)
        return;
    const QPalette pal = palette();
    const QColor background = pal.color(QPalette::Base), text = pal.color(QPalette::Text);
    for (QCustomPlot *plot : {m_roc, m_pr}) {
        applyPlotPalette(plot, {plot->xAxis, plot->yAxis}, pal, false);
        plot->legend->setBrush(withAlpha(background, 0.85));
        plot->legend->setTextColor(text);
    }
    m_rocTitle->setTextColor(text);
    m_prTitle->setTextColor(text);
}

} // namespace ty
