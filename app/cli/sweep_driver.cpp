#include "sweep_driver.h"

#include "run_database.h"
#include "sweep_pruning.h"
#include "sweep_report.h"
#include "sweep_trials.h"
#include "team_sweep_work.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QThread>
#include <QTimer>

#include <csignal>
#include <list>
#include <memory>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace ty::cli {

namespace {

constexpr int kWaitForStoppingRunsMs = 60000;

struct Worker {
    int trial = -1;
    qint64 runId = 0;               // known from the start for a resumed trial, from "started" for a new one
    std::unique_ptr<QProcess> process;
    QByteArray pending;             // stdout not yet ended by a newline
    QString pruneReason;            // set when the rule stopped it
    bool leaseLost = false;         // a team trial another worker took over (this one was presumed dead)
    QStringList errors;             // "error" events
    bool ended = false;
};

class SweepDriver {
public:
    SweepDriver(RunDatabase &db, const SweepRecord &sweep, Io &io, const SweepDriveOptions &options)
        : m_db(db), m_sweep(sweep), m_trials(recordedTrials(sweep)), m_io(io), m_quiet(options.quiet), m_team(options.team)
    {
        const QJsonObject spec = sweep.spec;
        m_parallel = qMax(1, options.parallel > 0 ? options.parallel : spec.value(QStringLiteral("parallel")).toInt(1));
        m_pruning.rule = pruningRuleFromName(spec.value(QStringLiteral("early_stop")).toString()).value_or(PruningRule::None);
        m_pruning.maximize = sweep.maximize;
        const int cores = qMax(1, QThread::idealThreadCount());
        // The preset's own thread setting, or one the sweep searches, is left alone.
        bool threadsFixed = sweep.preset.value(QStringLiteral("training")).toObject().value(QStringLiteral("threads")).toInt() > 0;
        for (const SweepTrial &trial : m_trials)
            for (const QString &set : trial.sets)
                threadsFixed = threadsFixed || set.startsWith(QLatin1String("training.threads="));
        if (m_parallel > 1 && !threadsFixed)
            m_threads = qMax(1, cores / m_parallel);
    }

    int run();

private:
    Status takeStockOfTrials();
    void tick();
    void start(int trial, qint64 resumeRun, const QString &initFrom = QString());
    void startTeamTrials();
    bool nothingLeft();
    QSet<int> runningTrials() const
    {
        QSet<int> trials;
        for (const Worker &worker : m_workers)
            trials.insert(worker.trial);
        return trials;
    }
    void read(Worker &worker);
    void handle(Worker &worker, const QJsonObject &event);
    void ended(Worker &worker);
    void updateBest();
    int teamResult();
    void say(const QString &line)
    {
        if (!m_quiet) {
            m_io.out << line << '\n';
            m_io.out.flush();
        }
    }
    QString trialText(int trial) const
    {
        return QStringLiteral("trial %1").arg(trial);
    }

    RunDatabase &m_db;
    SweepRecord m_sweep;
    QList<SweepTrial> m_trials;
    Io &m_io;
    bool m_quiet;
    TeamSweepWork *m_team = nullptr;
    int m_parallel = 1;
    int m_threads = 0;               // per worker; 0 leaves LibTorch's default
    PruningSettings m_pruning;
    TrialCurves m_curves;
    QList<QPair<int, qint64>> m_todo;  // trial, run to resume (0: a new run), in order
    std::list<Worker> m_workers;
    int m_unstarted = 0;             // trials whose worker ended without recording a run (not a queue cancel)
    int m_died = 0;                  // trials whose worker died while training (their runs are interrupted)
    bool m_warnedMetric = false;     // said once that the epoch events lack the metric
    bool m_stopping = false;
    QEventLoop m_loop;
};

Status SweepDriver::takeStockOfTrials()
{
    // Runs of an earlier driver may still be writing their last checkpoint (they got SIGTERM when it died).
    QElapsedTimer waited;
    waited.start();
    QMap<int, RunInfo> runs;
    for (;;) {
        m_db.markStaleRunsInterrupted();
        Result<QMap<int, RunInfo>> read = m_db.sweepRuns(m_sweep.id);
        if (!read)
            return read.error();
        runs = read.value();
        const auto live = std::find_if(runs.cbegin(), runs.cend(), [](const RunInfo &run) { return !runStatusIsTerminal(run.status); });
        if (live == runs.cend())
            break;
        if (stopFlag().load())
            return Error(QStringLiteral("stopped while waiting for the runs of an earlier driver to stop"));
        if (waited.elapsed() > kWaitForStoppingRunsMs)
            return Error(QStringLiteral("run %1 (trial %2 of sweep %3) is still running, in process %4 on %5: stop it first")
                             .arg(live->id).arg(live->sweepTrial).arg(m_sweep.id).arg(live->pid).arg(live->host));
        QThread::msleep(250);
    }
    for (const RunInfo &run : runs) {
        Result<QList<MetricPoint>> points = m_db.metrics(run.id, m_sweep.metric);
        if (!points)
            return points.error();
        for (const MetricPoint &point : points.value())
            m_curves[run.sweepTrial][point.epoch] = point.value;
    }
    for (const SweepTrial &trial : m_trials) {
        if (!runs.contains(trial.index)) {
            m_todo.append({trial.index, 0});
            continue;
        }
        const RunInfo &run = runs.value(trial.index);
        if (run.status != RunStatus::Stopped && run.status != RunStatus::Interrupted)
            continue;  // ended for good: finished, pruned, diverged, failed
        // A trial the rule stopped whose driver died before recording it pruned: judged at each epoch it recorded,
        // as the live driver did, the first decision to stop wins.
        PruningDecision decision;
        const QList<int> epochs = m_curves.value(trial.index).keys();
        for (int epoch : epochs) {
            decision = decidePruning(m_pruning, m_curves, trial.index, epoch, m_sweep.metric);
            if (decision.prune)
                break;
        }
        if (decision.prune) {
            if (Status set = m_db.setStatus(run.id, RunStatus::Pruned, decision.reason); !set)
                return set.error();
            say(QStringLiteral("%1 (run %2) pruned: %3").arg(trialText(trial.index)).arg(run.id).arg(decision.reason));
            continue;
        }
        m_todo.append({trial.index, run.id});
    }
    return Status::success();
}

void SweepDriver::start(int trial, qint64 resumeRun, const QString &initFrom)
{
    m_workers.emplace_back();
    Worker &worker = m_workers.back();
    worker.trial = trial;
    worker.runId = resumeRun;
    worker.process = std::make_unique<QProcess>();
    QStringList arguments;
    if (resumeRun > 0) {
        arguments = {QStringLiteral("resume"), QString::number(resumeRun)};
    } else {
        arguments = {QStringLiteral("run"), QStringLiteral("--sweep"), QString::number(m_sweep.id), QStringLiteral("--trial"),
                     QString::number(trial)};
        if (m_threads > 0)
            arguments << QStringLiteral("--set") << QStringLiteral("training.threads=%1").arg(m_threads);
        if (!initFrom.isEmpty())
            arguments << QStringLiteral("--init-from") << initFrom;
    }
    arguments << QStringLiteral("--db") << m_db.path() << QStringLiteral("--events") << QStringLiteral("--quiet");
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    if (m_threads > 0)
        for (const char *name : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"})
            environment.insert(QString::fromLatin1(name), QString::number(m_threads));
    if (m_team)  // the run replicates to the store (through the environment: no password on a command line)
        environment.insert(QStringLiteral("TRAINYARD_TEAM"), m_team->conninfo());
    worker.process->setProcessEnvironment(environment);
    worker.process->setProcessChannelMode(QProcess::SeparateChannels);
    worker.process->setChildProcessModifier([] {
        setpgid(0, 0);  // a terminal's Ctrl-C reaches the driver only; it stops each worker once
        std::signal(SIGPIPE, SIG_IGN);  // the driver gone, event lines fail instead of killing the worker
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGTERM);  // the driver killed: the worker checkpoints and stops
#endif
    });
    // Events are read as they come, so a pruned trial stops within its next steps.
    QObject::connect(worker.process.get(), &QProcess::readyReadStandardOutput, [this, &worker] { read(worker); });
    worker.process->start(sweepWorkerProgram(), arguments);
    if (!m_team)
        say(resumeRun > 0 ? QStringLiteral("%1 resumes run %2: %3").arg(trialText(trial)).arg(resumeRun).arg(sweepTrialName(m_trials.at(trial)))
                          : QStringLiteral("%1 starts: %2").arg(trialText(trial), sweepTrialName(m_trials.at(trial))));
}

void SweepDriver::read(Worker &worker)
{
    worker.pending += worker.process->readAllStandardOutput();
    for (int newline = worker.pending.indexOf('\n'); newline >= 0; newline = worker.pending.indexOf('\n')) {
        const QByteArray line = worker.pending.left(newline);
        worker.pending.remove(0, newline + 1);
        const QJsonDocument event = QJsonDocument::fromJson(line);
        if (event.isObject())
            handle(worker, event.object());
    }
}

void SweepDriver::handle(Worker &worker, const QJsonObject &event)
{
    const QString kind = event.value(QStringLiteral("event")).toString();
    if (kind == QLatin1String("started")) {
        worker.runId = event.value(QStringLiteral("run_id")).toInteger();
        if (m_team)
            m_team->started(worker.trial, worker.runId);
    } else if (kind == QLatin1String("error")) {
        worker.errors.append(event.value(QStringLiteral("message")).toString());
    } else if (kind == QLatin1String("epoch")) {
        const int epoch = event.value(QStringLiteral("epoch")).toInt();
        const QJsonObject metrics = event.value(QStringLiteral("metrics")).toObject();
        const QJsonValue value = metrics.value(m_sweep.metric);
        if (!value.isDouble()) {
            if (!m_warnedMetric && !metrics.contains(m_sweep.metric)) {
                m_warnedMetric = true;
                m_io.err << "warning: the trials' epochs record no " << m_sweep.metric << " (they have "
                         << QStringList(metrics.keys()).join(QStringLiteral(", "))
                         << "): nothing to stop early by, and the ranking waits for the metric at the end of each trial\n";
                m_io.err.flush();
            }
            return;
        }
        m_curves[worker.trial][epoch] = value.toDouble();
        if (m_stopping || !worker.pruneReason.isEmpty())
            return;
        if (m_team && m_pruning.rule != PruningRule::None)
            m_team->mergeCurves(m_curves, runningTrials(), m_sweep.metric);  // every machine's trials judge it
        const PruningDecision decision = decidePruning(m_pruning, m_curves, worker.trial, epoch, m_sweep.metric);
        if (decision.prune) {
            worker.pruneReason = decision.reason;
            worker.process->terminate();  // SIGTERM: it writes a checkpoint and ends the run as stopped
        }
    }
}

void SweepDriver::ended(Worker &worker)
{
    read(worker);
    worker.ended = true;
    if (worker.runId == 0) {
        Result<QMap<int, RunInfo>> runs = m_db.sweepRuns(m_sweep.id);
        if (runs && runs.value().contains(worker.trial))
            worker.runId = runs.value().value(worker.trial).id;
    }
    if (worker.runId == 0 && m_stopping) {
        if (m_team && !worker.leaseLost)
            m_team->ended(worker.trial, 0, QStringLiteral("queued"), QString());
        return;  // stopped before it recorded a run (loading, or waiting in the run queue): it stays queued
    }
    if (worker.runId == 0 && worker.process->exitStatus() == QProcess::NormalExit && worker.process->exitCode() == Stopped) {
        // Cancelled in the run queue (`queue cancel`, the app's Cancel): it stays queued.
        if (m_team && !worker.leaseLost)
            m_team->ended(worker.trial, 0, QStringLiteral("queued"), QString());
        say(QStringLiteral("%1 was cancelled in the run queue: it stays queued (sweep resume %2 runs it)").arg(trialText(worker.trial)).arg(m_sweep.id));
        return;
    }
    if (worker.runId == 0) {
        ++m_unstarted;
        const QString why = worker.errors.isEmpty() ? QString::fromUtf8(worker.process->readAllStandardError()).trimmed()
                                                    : worker.errors.join(QStringLiteral("; "));
        m_io.err << trialText(worker.trial) << " could not start: " << (why.isEmpty() ? worker.process->errorString() : why) << "\n";
        m_io.err.flush();
        if (m_team && !worker.leaseLost)
            m_team->ended(worker.trial, 0, QStringLiteral("failed"), why);
        return;
    }
    m_db.markStaleRunsInterrupted();  // a worker that died (killed, out of memory) left its run "running"
    Result<RunInfo> run = m_db.run(worker.runId);
    if (!run) {
        m_io.err << "error: " << run.error().toString() << "\n";
        return;
    }
    RunStatus status = run.value().status;
    if (status == RunStatus::Interrupted && !m_stopping)
        ++m_died;
    if (!worker.pruneReason.isEmpty() && status == RunStatus::Stopped) {
        if (Status set = m_db.setStatus(worker.runId, RunStatus::Pruned, worker.pruneReason); set)
            status = RunStatus::Pruned;
    }
    if (m_team && !worker.leaseLost)
        m_team->ended(worker.trial, worker.runId, runStatusName(status),
                      status == RunStatus::Pruned ? worker.pruneReason : run.value().statusMessage);
    updateBest();
    const std::optional<double> best = bestSoFar(m_curves.value(worker.trial), -1, m_sweep.maximize);
    QString line = QStringLiteral("%1 (run %2) %3").arg(trialText(worker.trial)).arg(worker.runId).arg(runStatusName(status));
    if (status == RunStatus::Pruned)
        line += QStringLiteral(": ") + worker.pruneReason;
    else if (best)
        line += QStringLiteral(": %1 %2").arg(m_sweep.metric).arg(*best, 0, 'g', 5);
    if (m_sweep.bestRun == worker.runId && !m_team)
        line += QStringLiteral(" (best so far)");
    if (worker.leaseLost)
        line += QStringLiteral(" (its lease ran out: another worker took the trial over)");
    say(line);
}

void SweepDriver::updateBest()
{
    Result<QList<SweepTrialRow>> rows = sweepTrialRows(m_db, m_sweep);
    if (!rows || rows.value().isEmpty() || !rows.value().first().value)
        return;
    const qint64 best = rows.value().first().runId;
    if (best != m_sweep.bestRun && m_db.setSweepBestRun(m_sweep.id, best))
        m_sweep.bestRun = best;
}

void SweepDriver::tick()
{
    if (stopFlag().load() && !m_stopping) {
        m_stopping = true;
        say(QStringLiteral("stopping: each running trial writes a checkpoint; `trainyard-cli sweep resume %1` continues").arg(m_sweep.id));
        for (Worker &worker : m_workers)
            worker.process->terminate();
    }
    for (Worker &worker : m_workers) {
        read(worker);
        if (worker.process->state() == QProcess::NotRunning)
            ended(worker);
    }
    m_workers.remove_if([](const Worker &worker) { return worker.ended; });
    if (m_team) {
        startTeamTrials();
    } else {
        while (!m_stopping && int(m_workers.size()) < m_parallel && !m_todo.isEmpty()) {
            const QPair<int, qint64> next = m_todo.takeFirst();
            start(next.first, next.second);
        }
    }
    if (m_workers.empty() && nothingLeft())
        m_loop.quit();
}

void SweepDriver::startTeamTrials()
{
    const QList<int> lost = m_team->renewLeases(runningTrials().values());
    for (Worker &worker : m_workers)
        if (lost.contains(worker.trial) && !worker.leaseLost) {
            worker.leaseLost = true;  // another worker trains it now: stop this copy
            worker.process->terminate();
        }
    while (!m_stopping && int(m_workers.size()) < m_parallel) {
        const std::optional<TeamSweepWork::Next> next = m_team->next();
        if (!next)
            break;
        say(QStringLiteral("%1 claimed by %2%3: %4")
                .arg(trialText(next->trial), m_team->workerName(), next->note.isEmpty() ? QString() : QStringLiteral(", ") + next->note,
                     sweepTrialName(m_trials.at(next->trial))));
        start(next->trial, next->resumeRun, next->initFrom);
    }
}

bool SweepDriver::nothingLeft()
{
    if (m_stopping)
        return true;
    return m_team ? m_team->done() : m_todo.isEmpty();
}

int SweepDriver::run()
{
    if (Status stock = m_team ? Status::success() : takeStockOfTrials(); !stock) {
        m_io.err << "error: " << stock.error().toString() << "\n";
        m_db.setSweepStatus(m_sweep.id, QStringLiteral("stopped"));
        return BadInput;
    }
    // A worker names the team sweep by the store's id (what `sweep worker ID` took), its local copy beside it.
    const QString sweepName = m_team ? QStringLiteral("team sweep %1 (sweep %2 here)").arg(m_team->storeSweepId()).arg(m_sweep.id)
                                     : QStringLiteral("sweep %1").arg(m_sweep.id);
    if (m_threads > 0)
        say(QStringLiteral("%1: %2 trials, %3 at a time with %4 each")
                .arg(sweepName)
                .arg(m_trials.size())
                .arg(m_parallel)
                .arg(m_threads == 1 ? QStringLiteral("1 thread") : QStringLiteral("%1 threads").arg(m_threads)));
    else
        say(QStringLiteral("%1: %2 trials, %3 at a time").arg(sweepName).arg(m_trials.size()).arg(m_parallel));
    QTimer timer;
    timer.setInterval(100);
    QObject::connect(&timer, &QTimer::timeout, [this] { tick(); });
    timer.start();
    tick();
    if (!(m_workers.empty() && nothingLeft()))
        m_loop.exec();
    timer.stop();
    if (m_team)
        return teamResult();

    updateBest();
    Result<QList<SweepTrialRow>> rows = sweepTrialRows(m_db, m_sweep);
    const bool allEnded = rows && endedTrials(rows.value()) == rows.value().size();
    // finished: every trial ended; stopped: Ctrl-C, or trials cancelled in the queue; failed: a trial could not start
    // or its worker died. All but finished can be resumed.
    const QString status = allEnded                                   ? QStringLiteral("finished")
                           : !m_stopping && (m_unstarted > 0 || m_died > 0) ? QStringLiteral("failed")
                                                                      : QStringLiteral("stopped");
    m_db.setSweepStatus(m_sweep.id, status);
    if (allEnded)
        return Success;
    return m_stopping ? Stopped : RunFailed;
}

int SweepDriver::teamResult()
{
    // This database's copy of the sweep says how the whole sweep stands on the store.
    updateBest();
    const QString onStore = m_team->storeStatus();
    const bool finished = onStore == QLatin1String("finished");
    m_db.setSweepStatus(m_sweep.id, finished ? QStringLiteral("finished") : m_stopping ? QStringLiteral("stopped") : QStringLiteral("running"));
    if (m_stopping)
        return Stopped;
    if (m_unstarted > 0 || m_died > 0)
        return RunFailed;
    if (!finished)
        say(QStringLiteral("this worker is done (%1 trial(s) claimed); the sweep goes on with the other workers").arg(m_team->claimed()));
    return Success;
}

} // namespace

QString sweepWorkerProgram()
{
    const QString fromEnvironment = qEnvironmentVariable("TRAINYARD_CLI");
    if (!fromEnvironment.isEmpty())
        return fromEnvironment;
    const QString self = QCoreApplication::applicationFilePath();
    if (QFileInfo(self).fileName() == QLatin1String("trainyard-cli"))
        return self;
    return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("trainyard-cli"));
}

int driveSweep(RunDatabase &db, const SweepRecord &sweep, Io &io, const SweepDriveOptions &options)
{
    SweepDriver driver(db, sweep, io, options);
    return driver.run();
}

} // namespace ty::cli
