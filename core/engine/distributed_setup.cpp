#include "distributed.h"

namespace ty {

namespace {

// A non-negative integer from `name`, or an error naming it; `fallback` when it is not set.
Result<int> integerVariable(const QProcessEnvironment &environment, const char *name, int fallback, int minimum)
{
    const QString key = QString::fromLatin1(name);
    if (!environment.contains(key))
        return fallback;
    bool ok = false;
    const int value = environment.value(key).trimmed().toInt(&ok);
    if (!ok || value < minimum)
        return Error(QStringLiteral("the environment variable %1 is \"%2\": expected an integer of at least %3")
                         .arg(key, environment.value(key).left(40)).arg(minimum));
    return value;
}

// The most tasks of this job step on one node, from srun's SLURM_STEP_TASKS_PER_NODE ("2(x3),1": 2 on each of
// three nodes, then 1); 0 when not set or not read.
int slurmTasksPerNode(const QProcessEnvironment &environment)
{
    int most = 0;
    for (const QString &part : environment.value(QStringLiteral("SLURM_STEP_TASKS_PER_NODE")).split(QLatin1Char(','))) {
        bool ok = false;
        const int tasks = part.section(QLatin1Char('('), 0, 0).trimmed().toInt(&ok);
        if (ok && tasks > most)
            most = tasks;
    }
    return most;
}

} // namespace

Result<DistributedSetup> distributedSetupFromEnvironment(const QProcessEnvironment &environment)
{
    DistributedSetup setup;
    const bool torchrun = environment.contains(QStringLiteral("WORLD_SIZE"));
    // Slurm: inside a job step that srun started (SLURM_STEP_NUM_TASKS), not in the batch script around it.
    const bool slurm = !torchrun && environment.contains(QStringLiteral("SLURM_STEP_NUM_TASKS")) && environment.contains(QStringLiteral("SLURM_PROCID"));
    if (!torchrun && !slurm)
        return setup;
    const char *worldName = torchrun ? "WORLD_SIZE" : "SLURM_STEP_NUM_TASKS";
    const char *rankName = torchrun ? "RANK" : "SLURM_PROCID";
    const char *localName = torchrun ? "LOCAL_RANK" : "SLURM_LOCALID";
    const Result<int> world = integerVariable(environment, worldName, 1, 1);
    if (!world)
        return world.error();
    if (world.value() == 1)
        return setup;  // one process, however it was started
    if (!environment.contains(QString::fromLatin1(rankName)))
        return Error(QStringLiteral("%1 is %2 but %3 is not set: each process needs its rank")
                         .arg(QString::fromLatin1(worldName)).arg(world.value()).arg(QString::fromLatin1(rankName)));
    const Result<int> rank = integerVariable(environment, rankName, 0, 0);
    if (!rank)
        return rank.error();
    if (rank.value() >= world.value())
        return Error(QStringLiteral("the environment variable %1 is %2, but %3 is %4: ranks go from 0 to %5")
                         .arg(QString::fromLatin1(rankName)).arg(rank.value()).arg(QString::fromLatin1(worldName))
                         .arg(world.value()).arg(world.value() - 1));
    const Result<int> local = integerVariable(environment, localName, rank.value(), 0);
    if (!local)
        return local.error();
    const Result<int> localWorld = integerVariable(environment, "LOCAL_WORLD_SIZE", slurm ? slurmTasksPerNode(environment) : 0, 1);
    if (!localWorld)
        return localWorld.error();
    const Result<int> port = integerVariable(environment, "MASTER_PORT", 29500, 1);
    if (!port)
        return port.error();
    if (port.value() > 65535)
        return Error(QStringLiteral("the environment variable MASTER_PORT is %1: a port is at most 65535").arg(port.value()));
    setup.worldSize = world.value();
    setup.rank = rank.value();
    setup.localRank = local.value();
    setup.localWorldSize = localWorld.value();
    setup.masterPort = port.value();
    const QString addr = environment.value(QStringLiteral("MASTER_ADDR")).trimmed();
    if (!addr.isEmpty())
        setup.masterAddr = addr;
    if (environment.value(QStringLiteral("TORCHELASTIC_USE_AGENT_STORE")).compare(QStringLiteral("true"), Qt::CaseInsensitive) == 0)
        setup.agentStorePrefix = QStringLiteral("/worker/attempt_%1")
                                     .arg(environment.value(QStringLiteral("TORCHELASTIC_RESTART_COUNT"), QStringLiteral("0")));
    setup.launcher = environment.value(QStringLiteral("TRAINYARD_LAUNCHER"),
                                       torchrun ? QStringLiteral("torchrun") : QStringLiteral("slurm"));
    return setup;
}

} // namespace ty
