#include "report_series.h"

#include "classifier_curves.h"
#include "number_text.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>

#include <cmath>

namespace ty {

QList<MetricSeries> groupMetricSeries(const QList<MetricPoint> &rows)
{
    QMap<QString, MetricSeries> byName;
    for (const MetricPoint &row : rows) {
        MetricSeries &s = byName[row.name];
        s.name = row.name;
        s.steps.push_back(row.step);
        s.epochs.push_back(row.epoch);
        s.times.push_back(row.time);
        s.values.push_back(row.value);
    }
    return byName.values();
}

namespace {

void appendNumber(QByteArray *out, double value)
{
    *out += std::isfinite(value) ? shortestNumberText(value).toLatin1() : QByteArrayLiteral("null");
}

template <typename T>
void appendColumn(QByteArray *out, const char *name, const std::vector<T> &column)
{
    *out += ",\"";
    *out += name;
    *out += "\":[";
    for (size_t i = 0; i < column.size(); ++i) {
        if (i > 0)
            *out += ',';
        if constexpr (std::is_integral_v<T>)
            *out += QByteArray::number(qint64(column[i]));
        else
            appendNumber(out, column[i]);
    }
    *out += ']';
}

QByteArray jsonString(const QString &text)
{
    // A one-element array's text minus its brackets: QJsonDocument's escaping of the string.
    const QByteArray array = QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2);
}

int splitOrder(const QString &name)
{
    const QString split = name.section(QLatin1Char('/'), 0, 0);
    return split == QStringLiteral("train") ? 0 : split == QStringLiteral("val") ? 1 : split == QStringLiteral("test") ? 2 : 3;
}

} // namespace

QByteArray metricSeriesJson(const QList<MetricSeries> &series)
{
    QByteArray out = "[";
    for (int i = 0; i < series.size(); ++i) {
        const MetricSeries &s = series[i];
        if (i > 0)
            out += ',';
        out += "{\"name\":" + jsonString(s.name) + ",\"points\":" + QByteArray::number(qint64(s.values.size()));
        appendColumn(&out, "step", s.steps);
        appendColumn(&out, "epoch", s.epochs);
        appendColumn(&out, "time", s.times);
        appendColumn(&out, "value", s.values);
        out += '}';
    }
    return out + ']';
}

ChartSeries chartSeries(const MetricSeries &series, const QString &label, int maxPoints)
{
    CurvePoints finite;
    for (size_t i = 0; i < series.values.size(); ++i)
        if (std::isfinite(series.values[i])) {
            finite.x.push_back(double(series.steps[i]));
            finite.y.push_back(series.values[i]);
        }
    const CurvePoints thinned = thinnedCurve(finite, maxPoints);
    ChartSeries c;
    c.label = label;
    c.x = thinned.x;
    c.y = thinned.y;
    return c;
}

QList<MetricChartGroup> metricChartGroups(const QList<MetricSeries> &series)
{
    QMap<QString, QList<int>> byMetric;
    QStringList order;
    for (int i = 0; i < series.size(); ++i) {
        const QString &name = series[i].name;
        if (name.startsWith(QStringLiteral("speed/")))
            continue;
        const QString metric = name.contains(QLatin1Char('/')) ? name.section(QLatin1Char('/'), 1) : name;
        if (!byMetric.contains(metric))
            order << metric;
        byMetric[metric] << i;
    }
    // Loss first, then the others by name.
    std::stable_sort(order.begin(), order.end(), [](const QString &a, const QString &b) {
        const bool aLoss = a == QStringLiteral("loss"), bLoss = b == QStringLiteral("loss");
        return aLoss != bLoss ? aLoss : a < b;
    });
    QList<MetricChartGroup> groups;
    for (const QString &metric : order) {
        QList<int> indices = byMetric.value(metric);
        std::stable_sort(indices.begin(), indices.end(),
                         [&](int a, int b) { return splitOrder(series[a].name) < splitOrder(series[b].name); });
        groups.append(MetricChartGroup{metric, indices});
    }
    return groups;
}

} // namespace ty
