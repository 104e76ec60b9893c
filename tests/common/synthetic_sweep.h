#pragma once
// A sweep recorded in a run database as a sweep driver and its trials' workers would (RunDatabase and RunWriter),
// without training anything: trials searching opt.lr (loguniform) and fc1.out_features (int), each finished with a
// val/loss curve whose best value depends on opt.lr alone (a parabola in log10(lr), least at 3e-3) and not at all on
// fc1.out_features. For the importance of `sweeps show` and the sweep view (issue 42). Header-only; test thread.

#include "run_database.h"
#include "run_writer.h"

#include <QJsonArray>
#include <QJsonObject>

#include <cmath>
#include <random>

namespace tytest {

// `finished` trials with runs, then `queued` trials without; the sweep's id, or 0 on a failure.
inline qint64 recordSyntheticSweep(ty::RunDatabase &db, int finished, int queued = 0)
{
    std::mt19937 random(5);
    std::uniform_real_distribution<double> uniform(0, 1);
    ty::NewSweep sweep;
    sweep.name = QStringLiteral("lr and width");
    sweep.metric = QStringLiteral("val/loss");
    sweep.spec = QJsonObject{{QStringLiteral("format"), QStringLiteral("trainyard-sweep")},
                             {QStringLiteral("metric"), sweep.metric},
                             {QStringLiteral("goal"), QStringLiteral("minimize")},
                             {QStringLiteral("random"), QJsonObject{{QStringLiteral("opt.lr"), QStringLiteral("loguniform(1e-4,1e-1)")},
                                                                    {QStringLiteral("fc1.out_features"), QStringLiteral("int(4,64)")}}}};
    QList<double> losses;
    for (int t = 0; t < finished + queued; ++t) {
        const double lr = std::pow(10.0, -4 + 3 * uniform(random));
        const int width = 4 + int(uniform(random) * 61);
        const double exponent = std::log10(lr) + 2.5;
        losses.append(0.2 + 0.3 * exponent * exponent + 0.01 * uniform(random));
        sweep.trials.append(QJsonObject{{QStringLiteral("index"), t},
                                        {QStringLiteral("set"), QJsonArray{QStringLiteral("opt.lr=%1").arg(lr, 0, 'g', 4),
                                                                           QStringLiteral("fc1.out_features=%1").arg(width)}}});
    }
    const ty::Result<qint64> id = db.createSweep(sweep);
    if (!id)
        return 0;
    for (int t = 0; t < finished; ++t) {
        ty::NewRun run;
        run.name = QStringLiteral("trial %1").arg(t);
        run.sweepId = id.value();
        run.sweepTrial = t;
        const ty::Result<qint64> runId = db.createRun(run);
        if (!runId)
            return 0;
        ty::RunWriter writer(db.path(), runId.value(), 3600 * 1000);
        if (!writer.start().ok())
            return 0;
        writer.appendMetrics({{QStringLiteral("val/loss"), 10, 1, 1.0, losses.at(t) + 0.5},
                              {QStringLiteral("val/loss"), 20, 2, 2.0, losses.at(t)}});
        if (!writer.finish(ty::RunStatus::Finished).ok())
            return 0;
    }
    if (!db.setSweepStatus(id.value(), queued > 0 ? QStringLiteral("stopped") : QStringLiteral("finished")).ok())
        return 0;
    return id.value();
}

} // namespace tytest
