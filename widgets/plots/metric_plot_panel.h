#pragma once
// A MetricPlot with its controls: which metrics (a group such as "loss: train + val", or one metric), the x
// axis (step, epoch, time), smoothing (a slider, 0 = off), linear or log y, reset view, and export (PNG, SVG,
// PDF, CSV through a file dialog).
// Ownership and threads: owns the plot and its controls; GUI thread.

#include "metric_series.h"

#include <QStringList>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QToolButton;

namespace ty {

class MetricPlot;

class MetricPlotPanel : public QWidget {
    Q_OBJECT
public:
    // `group`: the metrics shown first, e.g. {"train/loss", "val/loss"}, listed as `groupLabel`.
    explicit MetricPlotPanel(const QString &groupLabel, const QStringList &group, QWidget *parent = nullptr);

    MetricPlot *plot() const { return m_plot; }
    // Shows a group or a single metric (as if chosen in the combo box); adds it to the choices if needed.
    void showMetrics(const QStringList &metrics);
    void setXAxis(PlotXAxis axis);
    void setSmoothing(double weight);
    bool exportTo(const QString &path);  // by suffix: .png, .svg, .pdf, .csv

private:
    void updateChoices(const QStringList &known);
    void chooseMetrics(int index);
    void exportInteractively();

    MetricPlot *m_plot;
    QComboBox *m_metricChoice;
    QComboBox *m_axisChoice;
    QSlider *m_smoothing;
    QLabel *m_smoothingValue;
    QCheckBox *m_logY;
    QToolButton *m_reset;
    QToolButton *m_export;
};

} // namespace ty
