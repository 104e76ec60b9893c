#include "run_summaries.h"

#include "saturating.h"

namespace ty {

double MetricSummary::best() const { return metricHigherIsBetter(name) ? maximum : minimum; }

const QStringList &keyMetricNames()
{
    static const QStringList names{QStringLiteral("test/accuracy"), QStringLiteral("val/accuracy"),
                                   QStringLiteral("val/loss"), QStringLiteral("train/loss")};
    return names;
}

bool metricHigherIsBetter(const QString &name)
{
    const QString last = name.section(QLatin1Char('/'), -1).toLower();
    for (const char *word : {"acc", "f1", "precision", "recall", "auc", "iou"})
        if (last.contains(QLatin1String(word)))
            return true;
    return false;
}

double RunSummaryRow::durationSeconds() const
{
    if (!startedAt.isValid())
        return std::numeric_limits<double>::quiet_NaN();
    const QDateTime end = endedAt.isValid() ? endedAt : heartbeatAt.isValid() ? heartbeatAt : startedAt;
    return double(startedAt.msecsTo(end)) / 1000.0;
}

qint64 RunSummaryRow::parentRunId() const
{
    return parent.contains(QStringLiteral("run")) ? saturatedInt64(parent.value(QStringLiteral("run")).toDouble()) : 0;
}

} // namespace ty
