// MetricPlot: the hover read-out and the exports (PNG, SVG, PDF, CSV).

#include "metric_plot.h"

#include "common/duration_text.h"
#include "number_text.h"

#include "qcustomplot_include.h"

#include <QFileInfo>
#include <QMouseEvent>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTextStream>

#include <QFontMetrics>

#include <algorithm>
#include <cmath>

namespace ty {

namespace {

QString formatX(double x, PlotXAxis axis)
{
    switch (axis) {
    case PlotXAxis::Step: return QStringLiteral("step %1").arg(qint64(std::llround(x)));
    case PlotXAxis::Epoch: return QStringLiteral("epoch %1").arg(x, 0, 'f', 2);
    case PlotXAxis::WallTime: return QStringLiteral("time %1").arg(durationText(x));
    }
    return QString();
}

QString formatValue(double v) { return std::isnan(v) ? QStringLiteral("NaN") : QString::number(v, 'g', 5); }

// Index of the sample of `data` whose key is nearest to x; -1 when empty.
int nearestIndex(const QSharedPointer<QCPGraphDataContainer> &data, double x)
{
    if (data->isEmpty())
        return -1;
    auto it = data->findBegin(x, false);  // first key >= x
    if (it == data->constEnd())
        return data->size() - 1;
    int index = int(it - data->constBegin());
    if (index > 0 && std::abs(data->at(index - 1)->key - x) <= std::abs(it->key - x))
        --index;
    return index;
}

QString csvText(const QString &text)
{
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')))
        return text;
    return QLatin1Char('"') + QString(text).replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
}

// The shortest text that reads back as the same value: 0.3 for a metric computed as a float (not the
// 0.30000001192092896 of its widened double), 0.041 for a double (not 0.041000000000000002); NaN as an empty cell.
QString csvNumber(double v) { return std::isnan(v) ? QString() : shortestNumberText(v); }

} // namespace

double MetricPlot::snapKey(double x) const
{
    double snapped = std::nan("");
    for (const Curve &curve : m_curves) {
        const int i = nearestIndex(curve.raw->data(), x);
        if (i >= 0 && (std::isnan(snapped) || std::abs(curve.raw->data()->at(i)->key - x) < std::abs(snapped - x)))
            snapped = curve.raw->data()->at(i)->key;
    }
    return snapped;
}

QString MetricPlot::readoutAt(double x) const
{
    // Snap to the sample nearest to x over every shown curve, then read each curve at its sample nearest to that.
    const double snapped = snapKey(x);
    if (std::isnan(snapped))
        return QString();
    QStringList lines{formatX(snapped, m_xAxis)};
    for (auto run = m_runs.constBegin(); run != m_runs.constEnd(); ++run) {
        for (const QString &metric : m_metrics) {
            const auto it = m_curves.constFind(curveKey(run.key(), metric));
            if (it == m_curves.constEnd())
                continue;
            const int i = nearestIndex(it->raw->data(), snapped);
            if (i < 0)
                continue;
            const double key = it->raw->data()->at(i)->key;
            QString line = QStringLiteral("%1 · %2: ").arg(run->label, metric);
            if (it->smooth)
                line += QStringLiteral("%1 (raw %2)").arg(formatValue(it->smooth->data()->at(i)->value),
                                                          formatValue(it->raw->data()->at(i)->value));
            else
                line += formatValue(it->raw->data()->at(i)->value);
            if (key != snapped)
                line += QStringLiteral(" at %1").arg(formatX(key, m_xAxis));
            lines << line;
        }
    }
    return lines.join(QLatin1Char('\n'));
}

void MetricPlot::updateHover(QMouseEvent *event)
{
    if (event->buttons() != Qt::NoButton) {  // dragging: the user takes over the view
        userMovedView();
        hideHover();
        return;
    }
    showHoverAt(event->pos());
}

void MetricPlot::showHoverAt(const QPoint &pos)
{
    if (!m_plot->axisRect()->rect().contains(pos)) {
        hideHover();
        return;
    }
    const double x = m_plot->xAxis->pixelToCoord(pos.x());
    const QString text = readoutAt(x);
    if (text.isEmpty()) {
        hideHover();
        return;
    }
    const double snapped = snapKey(x);
    m_hoverLine->point1->setCoords(snapped, 0);
    m_hoverLine->point2->setCoords(snapped, 1);
    m_hoverLine->setVisible(true);
    m_hoverLabel->setText(text);
    placeHoverBox(m_plot->xAxis->coordToPixel(snapped));
    m_hoverLabel->setVisible(true);
    m_plot->layer(QStringLiteral("overlay"))->replot();
    Q_EMIT readoutChanged(text);
}

void MetricPlot::placeHoverBox(double pixelX)
{
    constexpr int kGap = 10;    // between the tracer line and the box
    constexpr int kInset = 4;   // between the box and the axis rect's edges
    const QRect area = m_plot->axisRect()->rect().adjusted(kInset, kInset, -kInset, -kInset);
    const QMargins padding = m_hoverLabel->padding();
    const QFontMetrics metrics(m_hoverLabel->font());
    // Lines longer than the chart is wide (a variant's long name) are shortened in the middle, keeping the run's
    // number and the values; readoutChanged() still carries the whole text.
    const int widest = area.width() - padding.left() - padding.right() - 2;
    QStringList lines = m_hoverLabel->text().split(QLatin1Char('\n'));
    for (QString &line : lines) {
        if (metrics.horizontalAdvance(line) <= widest)
            continue;
        // "#3 long name · train/loss: 0.41 (raw 0.39)": the name gives way, the values stay whole.
        const int colon = int(line.indexOf(QStringLiteral(": ")));
        const QString values = colon > 0 ? line.mid(colon) : QString();
        const int room = widest - metrics.horizontalAdvance(values);
        line = room > metrics.averageCharWidth() * 6
                   ? metrics.elidedText(line.left(colon), Qt::ElideMiddle, room) + values
                   : metrics.elidedText(line, Qt::ElideRight, widest);
    }
    m_hoverLabel->setText(lines.join(QLatin1Char('\n')));
    const QRect textRect = metrics.boundingRect(QRect(0, 0, 100000, 100000), Qt::AlignLeft | Qt::AlignTop, m_hoverLabel->text());
    const int width = textRect.width() + padding.left() + padding.right() + 2;
    // Right of the line while it fits, else left of it; never past either edge.
    int left = int(std::lround(pixelX)) + kGap;
    if (left + width > area.right())
        left = int(std::lround(pixelX)) - kGap - width;
    left = std::clamp(left, area.left(), std::max(area.left(), area.right() - width));
    m_hoverLabel->position->setType(QCPItemPosition::ptAbsolute);
    m_hoverLabel->position->setCoords(left, area.top());
}

QRectF MetricPlot::hoverBoxRect() const
{
    if (!m_hoverLabel->visible())
        return QRectF();
    return QRectF(m_hoverLabel->topLeft->pixelPosition(), m_hoverLabel->bottomRight->pixelPosition());
}

void MetricPlot::hideHover()
{
    if (!m_hoverLabel->visible())
        return;
    m_hoverLine->setVisible(false);
    m_hoverLabel->setVisible(false);
    m_plot->layer(QStringLiteral("overlay"))->replot();
    Q_EMIT readoutChanged(QString());
}

static QSize exportSize(const QWidget *plot, int width, int height)
{
    return QSize(width > 0 ? width : std::max(plot->width(), 800), height > 0 ? height : std::max(plot->height(), 500));
}

bool MetricPlot::savePng(const QString &path, int width, int height)
{
    replotNow();
    const QSize size = exportSize(m_plot, width, height);
    return m_plot->savePng(path, size.width(), size.height());
}

bool MetricPlot::savePdf(const QString &path, int width, int height)
{
    replotNow();
    const QSize size = exportSize(m_plot, width, height);
    return m_plot->savePdf(path, size.width(), size.height());
}

bool MetricPlot::saveSvg(const QString &path, int width, int height)
{
    replotNow();
    const QSize size = exportSize(m_plot, width, height);
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(m_plot->yAxis->label());
    generator.setDescription(QStringLiteral("Trainyard metric plot"));
    QCPPainter painter;
    if (!painter.begin(&generator))
        return false;
    m_plot->toPainter(&painter, size.width(), size.height());
    painter.end();
    return QFileInfo(path).size() > 0;
}

bool MetricPlot::saveCsv(const QString &path, QString *error) const
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error)
            *error = file.errorString();
        return false;
    }
    QTextStream out(&file);
    out << "run_id,run,metric,step,epoch,time,value,smoothed\n";
    for (auto run = m_runs.constBegin(); run != m_runs.constEnd(); ++run) {
        for (const QString &metric : m_metrics) {
            const auto samples = run->metrics.constFind(metric);
            if (samples == run->metrics.constEnd())
                continue;
            EmaSmoother smoother(isPerStepMetric(metric) ? m_smoothing : 0.0);  // as drawn
            const QString prefix = QStringLiteral("%1,%2,%3,").arg(run.key()).arg(csvText(run->label), csvText(metric));
            for (size_t i = 0; i < samples->size(); ++i) {
                const double value = samples->values[i];
                out << prefix << samples->steps[i] << ',' << samples->epochs[i] << ',' << csvNumber(samples->times[i])
                    << ',' << csvNumber(value) << ',' << csvNumber(smoother.next(value)) << '\n';
            }
        }
    }
    out.flush();
    if (!file.commit()) {
        if (error)
            *error = file.errorString();
        return false;
    }
    return true;
}

} // namespace ty
