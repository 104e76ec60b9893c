#pragma once
// The data behind the metric plots: every sample of every metric of a run, kept in full (no thinning; the
// plot's adaptive sampling decides what is drawn), the x value of a sample for each axis mode, and the
// exponential moving average used for smoothing.
// Plain values; no Qt widgets. Any thread, one owner at a time.

#include "run_records.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace ty {

enum class PlotXAxis { Step, Epoch, WallTime };
QString plotXAxisName(PlotXAxis axis);  // "step", "epoch", "time (s)"

// train/* metrics have a sample per step (or per read interval): noisy, smoothed when smoothing is on. Every
// other metric (val/*, test/*) has a sample per epoch or per run and is drawn as it is, with markers.
bool isPerStepMetric(const QString &metric);

// Samples of one metric of one run in the order written, column by column (28 bytes a sample).
struct MetricSamples {
    std::vector<qint64> steps;
    std::vector<qint32> epochs;
    std::vector<double> times;   // seconds since the run started
    std::vector<double> values;  // NaN where not finite when written

    size_t size() const { return values.size(); }
    void reserve(size_t n);
    void append(const MetricSamples &more);
    void clear();
};

// Splits rows of mixed metrics into samples per metric name, keeping the order of each.
QHash<QString, MetricSamples> samplesByMetric(const QList<MetricPoint> &rows);

// Debiased exponential moving average (as TensorBoard draws it): s_n = w*s_{n-1} + (1-w)*v_n, shown divided by
// 1 - w^n so the first points are not pulled towards zero. Weight 0 shows the raw values. Non-finite values
// pass through (they draw a gap) and leave the average as it was.
class EmaSmoother {
public:
    explicit EmaSmoother(double weight = 0.0);
    double weight() const { return m_weight; }
    double next(double value);
    void reset();

private:
    double m_weight;
    double m_accumulated = 0.0;
    double m_weightPower = 1.0;  // w^n
};

std::vector<double> emaSmooth(const std::vector<double> &values, double weight);

// Everything the plot knows about one run.
struct RunSeries {
    qint64 runId = 0;
    QString label;
    QHash<QString, MetricSamples> metrics;
    qint64 stepsPerEpoch = 0;          // given by the caller (the worker's "started" event), 0: estimated
    qint64 firstStepAfterEpoch1 = -1;  // the lowest step seen with epoch >= 2
    qint64 lastStepOfEpoch1 = 0;       // the highest step seen with epoch <= 1

    // Adds samples and keeps the epoch estimate up to date. Returns true when the steps-per-epoch estimate
    // changed (keys on the epoch axis then have to be computed again).
    bool append(const QString &metric, const MetricSamples &samples);
    // Steps per epoch: the given value, else estimated from the samples (exact once epoch 2 has begun); >= 1.
    qint64 effectiveStepsPerEpoch() const;
    // The x value of sample `i` of `samples` on `axis`.
    double key(const MetricSamples &samples, size_t i, PlotXAxis axis) const;
};

} // namespace ty
