#include "run_speed.h"

#include "run_database.h"

#include <algorithm>
#include <vector>

namespace ty {

namespace {

double median(const QList<MetricPoint> &points)
{
    std::vector<double> values;
    values.reserve(size_t(points.size()));
    for (const MetricPoint &p : points)
        values.push_back(p.value);
    std::sort(values.begin(), values.end());
    return values.empty() ? 0.0 : values[values.size() / 2];
}

// The largest of `points`, or `none` when there are none.
double largest(const QList<MetricPoint> &points, double none)
{
    double most = none;
    for (const MetricPoint &p : points)
        most = std::max(most, p.value);
    return most;
}

} // namespace

const QStringList &speedPhases()
{
    static const QStringList phases{QStringLiteral("data"), QStringLiteral("forward"), QStringLiteral("backward"),
                                    QStringLiteral("allreduce"), QStringLiteral("optimizer"), QStringLiteral("logging")};
    return phases;
}

Result<RunSpeed> runSpeed(const RunDatabase &db, qint64 runId)
{
    RunSpeed speed;
    const auto read = [&](const QString &name, QList<MetricPoint> *points) -> Status {
        Result<QList<MetricPoint>> read = db.metrics(runId, QStringLiteral("speed/") + name);
        if (!read)
            return read.error();
        *points = read.value();
        return Status::success();
    };
    QList<MetricPoint> points;
    if (const Status ok = read(QStringLiteral("samples_per_s"), &speed.rate); !ok)
        return ok.error();
    speed.samplesPerSecond = median(speed.rate);
    if (const Status ok = read(QStringLiteral("step_ms"), &points); !ok)
        return ok.error();
    speed.reports = int(points.size());
    speed.stepMs = median(points);
    for (const QString &phase : speedPhases()) {
        if (const Status ok = read(phase + QStringLiteral("_ms"), &points); !ok)
            return ok.error();
        if (!points.isEmpty())
            speed.phaseMs.insert(phase, median(points));
    }
    if (const Status ok = read(QStringLiteral("peak_rss_mb"), &points); !ok)
        return ok.error();
    speed.peakRssMb = largest(points, 0.0);
    if (const Status ok = read(QStringLiteral("peak_cuda_mb"), &points); !ok)
        return ok.error();
    speed.peakCudaMb = largest(points, -1.0);
    return speed;
}

QString runSpeedText(const RunSpeed &speed)
{
    QStringList phases;
    for (const QString &phase : speedPhases())
        if (speed.phaseMs.contains(phase))
            phases << QStringLiteral("%1 %2").arg(phase).arg(speed.phaseMs.value(phase), 0, 'f', 2);
    const QString gpu = speed.peakCudaMb >= 0 ? QStringLiteral(", GPU %1 MB").arg(speed.peakCudaMb, 0, 'f', 0) : QString();
    return QStringLiteral("%1 samples/s; a step %2 ms (%3 ms); peak memory %4 MB%5 (medians of %6 reports)")
        .arg(speed.samplesPerSecond, 0, 'f', 0)
        .arg(speed.stepMs, 0, 'f', 2)
        .arg(phases.join(QStringLiteral(", ")))
        .arg(speed.peakRssMb, 0, 'f', 0)
        .arg(gpu)
        .arg(speed.reports);
}

} // namespace ty
