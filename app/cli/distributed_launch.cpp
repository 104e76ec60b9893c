#include "distributed_launch.h"

#include "commands.h"
#include "sweep_driver.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QThread>

#include <csignal>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace ty::cli {

namespace {

class WorkerRankObserver : public TrainObserver {
public:
    bool stopRequested() override { return stopFlag().load(); }
};

} // namespace

std::unique_ptr<DistributedLaunch> DistributedLaunch::fromArguments(const Args &args, Io &io)
{
    auto launch = std::make_unique<DistributedLaunch>();
    const Result<DistributedSetup> fromEnvironment = distributedSetupFromEnvironment(QProcessEnvironment::systemEnvironment());
    if (!fromEnvironment) {
        printError(io, fromEnvironment.error());
        return nullptr;
    }
    launch->m_setup = fromEnvironment.value();
    if (args.options.contains(QStringLiteral("nproc"))) {
        bool ok = false;
        const int n = args.option(QStringLiteral("nproc")).toInt(&ok);
        if (!ok || n < 1 || n > 256) {
            io.err << "error: --nproc takes the number of processes, 1 to 256 (got \"" << args.option(QStringLiteral("nproc")).left(20) << "\")\n";
            return nullptr;
        }
        // The ranks --nproc starts carry their place in the environment: there, --nproc only has to agree.
        if (launch->m_setup.distributed() && launch->m_setup.worldSize != n) {
            io.err << "error: --nproc " << n << " but the environment says " << launch->m_setup.worldSize
                   << " processes (WORLD_SIZE or SLURM_STEP_NUM_TASKS): give one or the other\n";
            return nullptr;
        }
        if (!launch->m_setup.distributed() && n > 1) {
            launch->m_nproc = n;
            launch->m_setup.worldSize = n;
            launch->m_setup.localWorldSize = n;
            launch->m_setup.launcher = QStringLiteral("nproc");
            launch->m_setup.masterAddr = QStringLiteral("127.0.0.1");
            // A port of its own (not MASTER_PORT), so that two --nproc runs side by side never meet: the store's,
            // which join() serves before it starts the other ranks.
            launch->m_setup.masterPort = 0;
        }
    }
    return launch;
}

namespace {

// Waits until every process in `processes` has ended or `ms` have passed, whichever comes first.
void waitForAll(const std::vector<std::unique_ptr<QProcess>> &processes, int ms)
{
    QElapsedTimer clock;
    clock.start();
    for (const auto &process : processes)
        process->waitForFinished(int(std::max<qint64>(1, ms - clock.elapsed())));
}

} // namespace

DistributedLaunch::~DistributedLaunch()
{
    if (distributed() && !m_joined && m_nproc == 1) {
        const Result<std::shared_ptr<ProcessGroup>> group = ProcessGroup::connect(m_setup, 60);
        if (group) {
            try {
                group.value()->agree(false, QByteArray());
            } catch (const std::exception &) {
                // the others are gone already
            }
        }
    }
    // Ranks that trained to the end leave on their own. One still waiting in a collective (this rank stopped
    // before training, or failed) learns that this one is gone when the group closes, and ends.
    waitForAll(m_ranks, 3000);
    m_group.reset();
    waitForAll(m_ranks, 10000);
    for (const auto &rank : m_ranks)
        if (rank->state() != QProcess::NotRunning)
            rank->terminate();
    waitForAll(m_ranks, 5000);
    for (const auto &rank : m_ranks)
        if (rank->state() != QProcess::NotRunning)
            rank->kill();
    waitForAll(m_ranks, 2000);
}

int DistributedLaunch::checkBackend(const TrainingSettings &settings, const Args &args, Io &io) const
{
    if (!distributed())
        return Success;
    if (const Result<QString> backend = ProcessGroup::backendFor(m_setup, settings.distBackend, settings.device); !backend) {
        reportError(backend.error(), args, io);
        return BadInput;
    }
    return Success;
}

int DistributedLaunch::join(const QString &command, const QStringList &arguments, const TrainingSettings &settings,
                            const Args &args, Io &io)
{
    m_joined = true;
    if (!distributed())
        return Success;
    // Gloo writes to its peers with writev(), which raises SIGPIPE when a peer is gone: ignored, the write fails
    // and the collective reports the lost rank, instead of this rank dying by the signal before it can record
    // the run as interrupted.
    std::signal(SIGPIPE, SIG_IGN);
    // The machine's cores shared by the ranks on it.
    if (settings.threads <= 0 && m_setup.localWorldSize > 1)
        m_threads = std::max(1, QThread::idealThreadCount() / m_setup.localWorldSize);
    // The ranks this process starts meet at its store, listening before they start.
    std::shared_ptr<StoreServer> store;
    if (m_nproc > 1) {
        Result<std::shared_ptr<StoreServer>> served = StoreServer::start(m_setup.masterAddr, m_nproc, settings.distTimeout);
        if (!served) {
            reportError(served.error(), args, io);
            return RunFailed;
        }
        store = served.value();
        m_setup.masterPort = store->port();
    }
    for (int rank = 1; rank < m_nproc; ++rank) {
        auto process = std::make_unique<QProcess>();
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("RANK"), QString::number(rank));
        environment.insert(QStringLiteral("LOCAL_RANK"), QString::number(rank));
        environment.insert(QStringLiteral("WORLD_SIZE"), QString::number(m_nproc));
        environment.insert(QStringLiteral("LOCAL_WORLD_SIZE"), QString::number(m_nproc));
        environment.insert(QStringLiteral("MASTER_ADDR"), m_setup.masterAddr);
        environment.insert(QStringLiteral("MASTER_PORT"), QString::number(m_setup.masterPort));
        environment.insert(QStringLiteral("TRAINYARD_LAUNCHER"), QStringLiteral("nproc"));
        if (m_threads > 0)
            for (const char *name : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"})
                environment.insert(QString::fromLatin1(name), QString::number(m_threads));
        process->setProcessEnvironment(environment);
        process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        process->setStandardOutputFile(QProcess::nullDevice());
        const pid_t parent = getpid();
        process->setChildProcessModifier([parent] {
#ifdef __linux__
            prctl(PR_SET_PDEATHSIG, SIGTERM);  // rank 0 gone: this rank stops
            if (getppid() != parent)
                _exit(1);  // it went before the line above took effect
#endif
        });
        process->start(sweepWorkerProgram(), QStringList{command} + arguments);
        if (!process->waitForStarted(10000)) {
            Error e(QStringLiteral("could not start rank %1 of %2 (%3): %4")
                        .arg(rank).arg(m_nproc).arg(sweepWorkerProgram(), process->errorString()));
            reportError(e, args, io);
            return RunFailed;
        }
        m_ranks.push_back(std::move(process));
    }
    Result<std::shared_ptr<ProcessGroup>> group =
        ProcessGroup::connect(m_setup, settings.distTimeout, settings.distBackend, settings.device, store);
    if (!group) {
        reportError(group.error(), args, io);
        return RunFailed;
    }
    m_group = group.value();
    return Success;
}

QJsonObject DistributedLaunch::record() const
{
    return QJsonObject{{QStringLiteral("world_size"), m_setup.worldSize},
                       {QStringLiteral("backend"), m_group ? m_group->backend() : QString()},
                       {QStringLiteral("launcher"), m_setup.launcher},
                       {QStringLiteral("master"), QStringLiteral("%1:%2").arg(m_setup.masterAddr).arg(m_setup.masterPort)}};
}

int trainWorkerRank(PreparedTraining &training, const DistributedLaunch &launch, Io &io)
{
    WorkerRankObserver observer;
    const TrainResult result = training.run(observer);
    // Asked to stop (Ctrl-C reaches every process of a terminal's group) while rank 0 went first: stopped too.
    if (result.outcome == TrainOutcome::Stopped || (result.outcome == TrainOutcome::Interrupted && stopFlag().load()))
        return Stopped;
    switch (result.outcome) {
    case TrainOutcome::Finished:
        return Success;
    default:
        io.err << "rank " << launch.setup().rank << ": " << result.message << "\n";
        return RunFailed;
    }
}

} // namespace ty::cli
