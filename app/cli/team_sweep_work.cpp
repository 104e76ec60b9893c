#include "team_sweep_work.h"

#include "run_database.h"
#include "run_liveness.h"
#include "team_push.h"
#include "team_sweeps.h"

#include <QFileInfo>

namespace ty::cli {

namespace {

constexpr int kStorePollMs = 1000;

bool endsTheTrial(const QString &status)
{
    return status == QLatin1String("finished") || status == QLatin1String("pruned") || status == QLatin1String("diverged")
        || status == QLatin1String("failed");
}

// The first of `paths` (newest first) that is a readable regular file here (a shared filesystem), else empty.
QString newestReadable(const QStringList &paths)
{
    for (const QString &path : paths) {
        const QFileInfo file(path);
        if (file.isFile() && file.isReadable())
            return path;
    }
    return QString();
}

} // namespace

TeamSweepWork::TeamSweepWork(const TeamSweepSettings &settings, RunDatabase &db, Io &io)
    : m_settings(settings), m_db(db), m_io(io), m_worker(QStringLiteral("%1:%2").arg(thisHostName()).arg(thisProcessId()))
{
}

void TeamSweepWork::warn(const Error &error)
{
    // Once per message: a store that is down is said once, not at every poll.
    if (m_warned.contains(error.message))
        return;
    m_warned.insert(error.message);
    m_io.err << "warning: " << error.toString() << " (the worker retries)\n";
    m_io.err.flush();
}

bool TeamSweepWork::connected()
{
    if (m_server.isOpen())
        return true;
    if (Status opened = m_server.open(m_settings.conninfo); !opened) {
        warn(opened.error());
        return false;
    }
    return true;
}

std::optional<TeamSweepWork::Next> TeamSweepWork::next()
{
    if (m_settings.maxTrials >= 0 && m_claimed >= m_settings.maxTrials)
        return std::nullopt;
    if (m_sincePoll.isValid() && m_sincePoll.elapsed() < kStorePollMs)
        return std::nullopt;
    m_sincePoll.start();
    if (!connected())
        return std::nullopt;
    Result<std::optional<TeamTrialClaim>> claim = claimTeamTrial(m_server, m_settings.sweepId, m_worker, m_settings.leaseSeconds);
    if (!claim) {
        warn(claim.error());
        m_server.close();
        return std::nullopt;
    }
    if (!claim.value())
        return std::nullopt;
    m_sincePoll.invalidate();  // a free trial now: the next slot asks again at once
    ++m_claimed;
    const TeamTrialClaim &taken = *claim.value();
    Next next;
    next.trial = taken.trial;
    const QString whose = taken.claims > 1 ? QStringLiteral("takes over from %1 (claim %2)").arg(taken.previousWorker).arg(taken.claims)
                                           : QStringLiteral("was stopped");
    if (!taken.previousRunUuid.isEmpty()) {
        Result<qint64> local = m_db.runIdByUuid(taken.previousRunUuid);
        Result<RunInfo> run = local && local.value() > 0 ? m_db.run(local.value()) : Result<RunInfo>(Error());
        if (run && endsTheTrial(runStatusName(run.value().status))) {
            // Its run ended here before the trial's end reached the store (the worker was killed in between).
            ended(taken.trial, run.value().id, runStatusName(run.value().status), run.value().statusMessage);
            return std::nullopt;
        }
        if (run) {
            next.resumeRun = run.value().id;
            next.note = QStringLiteral("%1: resumes run %2 of this database").arg(whose).arg(next.resumeRun);
        } else if (const QString newest = newestReadable(taken.checkpointPaths); !newest.isEmpty()) {
            next.initFrom = newest;
            next.note = QStringLiteral("%1: warm-starts from its newest replicated checkpoint readable here, %2").arg(whose, newest);
        } else {
            next.note = QStringLiteral("%1: starts again (%2)")
                            .arg(whose, taken.checkpointPaths.isEmpty()
                                            ? QStringLiteral("no checkpoint was replicated")
                                            : QStringLiteral("none of its %1 replicated checkpoints is a readable file here; the newest: %2")
                                                  .arg(taken.checkpointPaths.size())
                                                  .arg(taken.checkpointPaths.first()));
        }
    }
    return next;
}

bool TeamSweepWork::done()
{
    if (m_settings.maxTrials >= 0 && m_claimed >= m_settings.maxTrials)
        return true;
    if (m_allEnded)
        return true;
    if (m_sinceProgress.isValid() && m_sinceProgress.elapsed() < kStorePollMs)
        return false;
    m_sinceProgress.start();
    if (!connected())
        return false;
    Result<TeamSweepProgress> progress = teamSweepProgress(m_server, m_settings.sweepId);
    if (!progress) {
        warn(progress.error());
        m_server.close();
        return false;
    }
    m_allEnded = progress.value().ended == progress.value().trials;
    return m_allEnded;
}

QList<int> TeamSweepWork::renewLeases(const QList<int> &trials)
{
    if (trials.isEmpty() || (m_sinceRenew.isValid() && m_sinceRenew.elapsed() < m_settings.leaseSeconds * 1000 / 3))
        return {};
    m_sinceRenew.start();
    QList<int> lost;
    if (!connected())
        return lost;
    for (int trial : trials) {
        Result<bool> renewed = renewTeamTrialLease(m_server, m_settings.sweepId, trial, m_worker, m_settings.leaseSeconds);
        if (!renewed) {
            warn(renewed.error());
            m_server.close();
            return lost;
        }
        if (!renewed.value())
            lost << trial;
    }
    return lost;
}

void TeamSweepWork::started(int trial, qint64 runId)
{
    Result<RunInfo> run = m_db.run(runId);
    if (!run) {
        warn(run.error());
        return;
    }
    if (!connected())
        return;
    if (Status set = setTeamTrialRun(m_server, m_settings.sweepId, trial, m_worker, run.value().uuid); !set) {
        warn(set.error());
        m_server.close();
    }
}

void TeamSweepWork::ended(int trial, qint64 runId, const QString &status, const QString &message)
{
    if (!connected())
        return;
    std::optional<double> value;
    if (runId > 0) {
        // The run's last status (pruned is set after its own replicator stopped) reaches the store first.
        TeamPushOptions options;
        options.runIds = {runId};
        if (Result<TeamPushReport> pushed = pushRunsToTeam(m_db.path(), m_server, options); !pushed)
            warn(pushed.error());
        TrialCurve curve;
        if (Result<QList<MetricPoint>> points = m_db.metrics(runId, m_settings.metric))
            for (const MetricPoint &point : points.value())
                curve[int(point.step)] = point.value;  // every point: only the best counts
        value = bestSoFar(curve, -1, m_settings.maximize);
        Result<RunInfo> run = m_db.run(runId);
        if (run && (!run.value().uuid.isEmpty()))
            (void)setTeamTrialRun(m_server, m_settings.sweepId, trial, m_worker, run.value().uuid);
    }
    const QString onStore = endsTheTrial(status) ? status : QStringLiteral("queued");
    if (Status recorded = endTeamTrial(m_server, m_settings.sweepId, trial, m_worker, onStore, value, message); !recorded) {
        warn(recorded.error());
        m_server.close();
    }
}

void TeamSweepWork::mergeCurves(TrialCurves &curves, const QSet<int> &own, const QString &metric)
{
    if (!connected())
        return;
    Result<TrialCurves> store = teamSweepCurves(m_server, m_settings.sweepId, metric);
    if (!store) {
        warn(store.error());
        m_server.close();
        return;
    }
    for (auto it = store.value().cbegin(); it != store.value().cend(); ++it)
        if (!own.contains(it.key()))
            curves[it.key()] = it.value();
}

QString TeamSweepWork::storeStatus()
{
    if (!connected())
        return QString();
    Result<SweepRecord> sweep = teamSweep(m_server, m_settings.sweepId);
    if (!sweep) {
        warn(sweep.error());
        return QString();
    }
    return sweep.value().status;
}

} // namespace ty::cli
