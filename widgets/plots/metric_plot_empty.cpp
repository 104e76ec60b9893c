// MetricPlot: the note in the middle of a chart that shows no curve, saying why (no run chosen, no sample yet, or
// runs that record none of the chart's metrics because their graph has no metric node of that name).

#include "metric_plot.h"

#include "qcustomplot_include.h"

namespace ty {

namespace {

// A metric a metric node records ("train/accuracy", "val/top3"), as opposed to the loss, the learning rate and the
// speed measurements ("speed/samples_per_s").
bool isMetricNodeMetric(const QString &metric)
{
    const QString split = metric.section(QLatin1Char('/'), 0, 0), name = metric.section(QLatin1Char('/'), 1);
    const bool ofASplit = split == QLatin1String("train") || split == QLatin1String("val") || split == QLatin1String("test");
    return ofASplit && !name.isEmpty() && name != QLatin1String("loss") && name != QLatin1String("lr");
}

} // namespace

void MetricPlot::createEmptyNote()
{
    m_emptyNote = new QCPItemText(m_plot);
    m_emptyNote->setLayer(QStringLiteral("overlay"));
    m_emptyNote->setClipToAxisRect(true);
    m_emptyNote->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_emptyNote->position->setCoords(0.5, 0.5);
    m_emptyNote->setPositionAlignment(Qt::AlignCenter);
    m_emptyNote->setTextAlignment(Qt::AlignCenter);
    m_emptyNote->setPadding(QMargins(8, 6, 8, 6));
    m_emptyNote->setVisible(false);
}

QString MetricPlot::emptyReason() const
{
    for (const Curve &curve : m_curves)
        if (!curve.raw->data()->isEmpty())
            return QString();
    if (m_runs.isEmpty())
        return tr("No run to show: train the pipeline (F5),\nor select runs in the browser");
    if (m_metrics.isEmpty())
        return tr("No metric chosen");
    const QStringList known = knownMetrics();
    if (known.isEmpty())
        return tr("Waiting for the first samples…");
    const QString shown = m_metrics.join(tr(" or "));
    QStringList others;
    for (const QString &metric : known)
        if (isMetricNodeMetric(metric) && !m_metrics.contains(metric))
            others << metric;
    if (!others.isEmpty()) {
        constexpr int kNamed = 4;
        const QString named = others.mid(0, kNamed).join(QStringLiteral(", ")) + (others.size() > kNamed ? QStringLiteral(", …") : QString());
        return tr("The runs shown record no %1.\nTheir metrics: %2 (choose one above)").arg(shown, named);
    }
    bool metricWanted = false;
    for (const QString &metric : m_metrics)
        metricWanted = metricWanted || isMetricNodeMetric(metric);
    if (metricWanted)
        return tr("The runs shown record no %1:\ntheir graphs have no metric node (such as Accuracy).\n"
                  "Add one from the palette's Metrics and train again to see it here.").arg(shown);
    return tr("The runs shown record no %1 yet").arg(shown);
}

void MetricPlot::updateEmptyNote()
{
    const QString reason = emptyReason();
    if (m_emptyNote->text() != reason)
        m_emptyNote->setText(reason);
    m_emptyNote->setVisible(!reason.isEmpty());
    const QPalette pal = palette();
    m_emptyNote->setColor(pal.color(QPalette::PlaceholderText));
}

QString MetricPlot::emptyText() const { return m_emptyNote->visible() ? m_emptyNote->text() : QString(); }

} // namespace ty
