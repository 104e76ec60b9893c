#include "metric_series.h"

#include <algorithm>
#include <cmath>

namespace ty {

QString plotXAxisName(PlotXAxis axis)
{
    switch (axis) {
    case PlotXAxis::Step: return QStringLiteral("step");
    case PlotXAxis::Epoch: return QStringLiteral("epoch");
    case PlotXAxis::WallTime: return QStringLiteral("time (s)");
    }
    return QString();
}

bool isPerStepMetric(const QString &metric) { return metric.startsWith(QLatin1String("train/")); }

void MetricSamples::reserve(size_t n)
{
    steps.reserve(n);
    epochs.reserve(n);
    times.reserve(n);
    values.reserve(n);
}

void MetricSamples::append(const MetricSamples &more)
{
    // Geometric growth of the four columns together (vector::insert alone may grow exactly to fit), and room for
    // half as much again after a bulk load, so the small appends of a live run that follow do not copy every
    // sample at once. Capacity never written is never touched: it costs address space, not memory.
    const size_t needed = size() + more.size();
    if (needed > values.capacity())
        reserve(std::max(needed + needed / 2, values.capacity() * 2));
    steps.insert(steps.end(), more.steps.begin(), more.steps.end());
    epochs.insert(epochs.end(), more.epochs.begin(), more.epochs.end());
    times.insert(times.end(), more.times.begin(), more.times.end());
    values.insert(values.end(), more.values.begin(), more.values.end());
}

void MetricSamples::clear()
{
    steps.clear();
    epochs.clear();
    times.clear();
    values.clear();
}

QHash<QString, MetricSamples> samplesByMetric(const QList<MetricPoint> &rows)
{
    QHash<QString, MetricSamples> out;
    MetricSamples *current = nullptr;
    QString currentName;
    for (const MetricPoint &row : rows) {
        if (!current || row.name != currentName) {  // rows of one name usually come in runs
            currentName = row.name;
            current = &out[row.name];
        }
        current->steps.push_back(row.step);
        current->epochs.push_back(row.epoch);
        current->times.push_back(row.time);
        current->values.push_back(row.value);
    }
    return out;
}

EmaSmoother::EmaSmoother(double weight) : m_weight(std::clamp(weight, 0.0, 0.9999)) {}

double EmaSmoother::next(double value)
{
    if (!std::isfinite(value))
        return value;
    m_accumulated = m_accumulated * m_weight + (1.0 - m_weight) * value;
    m_weightPower *= m_weight;
    return m_accumulated / (1.0 - m_weightPower);
}

void EmaSmoother::reset()
{
    m_accumulated = 0.0;
    m_weightPower = 1.0;
}

std::vector<double> emaSmooth(const std::vector<double> &values, double weight)
{
    EmaSmoother smoother(weight);
    std::vector<double> out;
    out.reserve(values.size());
    for (double v : values)
        out.push_back(smoother.next(v));
    return out;
}

bool RunSeries::append(const QString &metric, const MetricSamples &samples)
{
    const qint64 before = effectiveStepsPerEpoch();
    for (size_t i = 0; i < samples.size(); ++i) {
        if (samples.epochs[i] >= 2) {
            if (firstStepAfterEpoch1 < 0 || samples.steps[i] < firstStepAfterEpoch1)
                firstStepAfterEpoch1 = samples.steps[i];
        } else {
            lastStepOfEpoch1 = std::max(lastStepOfEpoch1, samples.steps[i]);
        }
    }
    metrics[metric].append(samples);
    return effectiveStepsPerEpoch() != before;
}

qint64 RunSeries::effectiveStepsPerEpoch() const
{
    if (stepsPerEpoch > 0)
        return stepsPerEpoch;
    // Steps count from 1, so epoch 2 begins at steps-per-epoch + 1.
    if (firstStepAfterEpoch1 > 1)
        return firstStepAfterEpoch1 - 1;
    return std::max<qint64>(1, lastStepOfEpoch1);
}

double RunSeries::key(const MetricSamples &samples, size_t i, PlotXAxis axis) const
{
    switch (axis) {
    case PlotXAxis::Step: return double(samples.steps[i]);
    case PlotXAxis::Epoch: return double(samples.steps[i]) / double(effectiveStepsPerEpoch());
    case PlotXAxis::WallTime: return samples.times[i];
    }
    return 0.0;
}

} // namespace ty
