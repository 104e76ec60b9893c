#include "metric_plot_panel.h"

#include "metric_plot.h"

#include "common/flow_layout.h"
#include "icons/icon_library.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>

namespace ty {

namespace {

constexpr int kSmoothingSteps = 100;  // the slider goes 0 .. 0.99 in steps of 0.01

QString groupText(const QString &label, const QStringList &metrics)
{
    return QStringLiteral("%1 (%2)").arg(label, metrics.join(QStringLiteral(" + ")));
}

} // namespace

MetricPlotPanel::MetricPlotPanel(const QString &groupLabel, const QStringList &group, QWidget *parent)
    : QWidget(parent), m_plot(new MetricPlot(this)), m_metricChoice(new QComboBox(this)), m_axisChoice(new QComboBox(this)),
      m_smoothing(new QSlider(Qt::Horizontal, this)), m_smoothingValue(new QLabel(this)),
      m_logY(new QCheckBox(tr("Log y"), this)),
      m_reset(new QToolButton(this)), m_export(new QToolButton(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    // The controls wrap onto a second line when the plot is narrow, instead of squeezing the choices unreadable.
    auto *controls = new FlowLayout;
    controls->addWidget(m_metricChoice);
    controls->addWidget(m_axisChoice);
    auto *smoothingBox = new QWidget(this);  // label, slider and value stay on one line
    auto *smoothingRow = new QHBoxLayout(smoothingBox);
    smoothingRow->setContentsMargins(0, 0, 0, 0);
    auto *smoothingLabel = new QLabel(tr("Smooth"), smoothingBox);
    smoothingLabel->setToolTip(tr("Exponential moving average of each curve; the raw values stay faint behind it"));
    smoothingRow->addWidget(smoothingLabel);
    smoothingRow->addWidget(m_smoothing);
    smoothingRow->addWidget(m_smoothingValue);
    controls->addWidget(smoothingBox);
    controls->addWidget(m_logY);
    controls->addWidget(m_reset);
    controls->addWidget(m_export);
    layout->addLayout(controls);
    layout->addWidget(m_plot, 1);

    m_metricChoice->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_metricChoice->setMinimumContentsLength(18);
    if (!group.isEmpty())
        m_metricChoice->addItem(groupText(groupLabel, group), group);
    for (PlotXAxis axis : {PlotXAxis::Step, PlotXAxis::Epoch, PlotXAxis::WallTime})
        m_axisChoice->addItem(plotXAxisName(axis), int(axis));
    m_smoothing->setRange(0, kSmoothingSteps - 1);
    m_smoothing->setMaximumWidth(120);
    m_smoothing->setMinimumWidth(50);
    m_smoothing->setValue(int(std::lround(m_plot->smoothing() * kSmoothingSteps)));
    m_smoothingValue->setText(QString::number(m_plot->smoothing(), 'f', 2));
    m_smoothingValue->setMinimumWidth(m_smoothingValue->fontMetrics().horizontalAdvance(QStringLiteral("0.00")));
    m_reset->setText(tr("Reset view"));
    m_reset->setIcon(icons::actionIcon(QStringLiteral("zoom-fit")));
    m_reset->setAutoRaise(true);
    m_reset->setToolTip(tr("Show all data again and follow new samples (or double-click the plot)"));
    m_export->setText(tr("Export…"));
    m_export->setIcon(icons::actionIcon(QStringLiteral("document-save")));
    m_export->setAutoRaise(true);
    m_export->setToolTip(tr("Save the chart (PNG, SVG, PDF) or every sample of its curves (CSV)"));
    connect(m_export, &QToolButton::clicked, this, &MetricPlotPanel::exportInteractively);

    connect(m_metricChoice, &QComboBox::currentIndexChanged, this, &MetricPlotPanel::chooseMetrics);
    connect(m_axisChoice, &QComboBox::currentIndexChanged, this,
            [this](int index) { m_plot->setXAxis(PlotXAxis(m_axisChoice->itemData(index).toInt())); });
    connect(m_smoothing, &QSlider::valueChanged, this, [this](int value) {
        const double weight = double(value) / kSmoothingSteps;
        m_smoothingValue->setText(QString::number(weight, 'f', 2));
        m_plot->setSmoothing(weight);
    });
    connect(m_logY, &QCheckBox::toggled, m_plot, &MetricPlot::setLogY);
    connect(m_reset, &QToolButton::clicked, m_plot, &MetricPlot::resetView);
    connect(m_plot, &MetricPlot::knownMetricsChanged, this, &MetricPlotPanel::updateChoices);
    m_plot->setMetrics(group);
    m_plot->setTitle(groupLabel);
}

void MetricPlotPanel::updateChoices(const QStringList &known)
{
    for (const QString &metric : known)
        if (m_metricChoice->findData(QStringList{metric}) < 0)
            m_metricChoice->addItem(metric, QStringList{metric});
    if (m_metricChoice->currentIndex() < 0 && m_metricChoice->count() > 0)
        m_metricChoice->setCurrentIndex(0);
}

void MetricPlotPanel::chooseMetrics(int index)
{
    if (index < 0)
        return;
    const QStringList metrics = m_metricChoice->itemData(index).toStringList();
    m_plot->setMetrics(metrics);
    m_plot->setTitle(metrics.size() == 1 ? metrics.first() : m_metricChoice->itemText(index).section(QLatin1Char(' '), 0, 0));
}

void MetricPlotPanel::showMetrics(const QStringList &metrics)
{
    int index = m_metricChoice->findData(metrics);
    if (index < 0) {
        m_metricChoice->addItem(metrics.join(QStringLiteral(" + ")), metrics);
        index = m_metricChoice->count() - 1;
    }
    m_metricChoice->setCurrentIndex(index);
    chooseMetrics(index);
}

void MetricPlotPanel::setXAxis(PlotXAxis axis) { m_axisChoice->setCurrentIndex(m_axisChoice->findData(int(axis))); }

void MetricPlotPanel::setSmoothing(double weight) { m_smoothing->setValue(int(std::lround(weight * kSmoothingSteps))); }

bool MetricPlotPanel::exportTo(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("svg"))
        return m_plot->saveSvg(path);
    if (suffix == QLatin1String("pdf"))
        return m_plot->savePdf(path);
    if (suffix == QLatin1String("csv"))
        return m_plot->saveCsv(path);
    return m_plot->savePng(path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive) ? path : path + QStringLiteral(".png"));
}

void MetricPlotPanel::exportInteractively()
{
    QString selected;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the chart or its data"), QString(),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf);;CSV data, every sample (*.csv)"), &selected);
    if (path.isEmpty())
        return;
    QString target = path;
    if (QFileInfo(target).suffix().isEmpty())  // the suffix of the chosen filter, "*.svg" -> "svg"
        target += QLatin1Char('.') + selected.section(QStringLiteral("*."), 1).section(QLatin1Char(')'), 0, 0);
    exportTo(target);
}

} // namespace ty
