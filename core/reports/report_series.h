#pragma once
// A run's metric rows for the HTML reports: grouped into one series per metric name, written in full as JSON
// columns (the raw series the report carries), and thinned for drawing. Pure functions; any thread.

#include "report_charts.h"
#include "run_records.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <vector>

namespace ty {

struct MetricSeries {
    QString name;  // "train/loss"
    std::vector<qint64> steps;
    std::vector<int> epochs;
    std::vector<double> times, values;
};

// One series per name, in name order, each in the order of the rows (db.metrics() gives name, step order).
QList<MetricSeries> groupMetricSeries(const QList<MetricPoint> &rows);

// The series as a JSON array of {"name", "points", "step": [...], "epoch": [...], "time": [...], "value": [...]}:
// every row, numbers as their shortest text (shortestNumberText: a value that was a float reads back as that
// float), null for NaN and infinities.
QByteArray metricSeriesJson(const QList<MetricSeries> &series);

// The chart points of a series (x = step): its finite values, at most `maxPoints` of them, chosen by
// thinnedCurve (Visvalingam-Whyatt), so that peaks and corners stay.
ChartSeries chartSeries(const MetricSeries &series, const QString &label, int maxPoints);

// The charts of a run: the series grouped by what follows their split prefix ("train/loss" and "val/loss" on the
// "loss" chart), each chart's series in the order train, val, test, then others; speed/ series left out.
struct MetricChartGroup {
    QString title;            // "loss"
    QList<int> seriesIndices;  // into the grouped series
};
QList<MetricChartGroup> metricChartGroups(const QList<MetricSeries> &series);

} // namespace ty
