// The team store's replicator beside training (docs/team.md): the engine with `run --team`'s replicator pointed at a
// store that is down (a Unix socket folder with no server: every pass fails at once) and at one that hangs (a TCP
// port that accepts connections and never answers: every pass waits for libpq's connect_timeout), against the same
// run without a store. Issue 41 asks for training speed within 2 % either way.

#include "bench_sections.h"
#include "engine_run.h"
#include "run_database.h"
#include "team_replicator.h"

#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <cstdio>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

namespace ty::bench {

namespace {

// A TCP port on 127.0.0.1 that listens but never accepts: connections complete in the kernel's backlog and then
// hear nothing. Returns the port, or 0; `*fd` is closed by the caller.
int hungPort(int *fd)
{
    *fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (*fd < 0 || bind(*fd, reinterpret_cast<sockaddr *>(&address), length) != 0 || listen(*fd, 64) != 0
        || getsockname(*fd, reinterpret_cast<sockaddr *>(&address), &length) != 0)
        return 0;
    return ntohs(address.sin_port);
}

// Median over interleaved pairs (alternating order) of the ratio with the store / without: each pair's two runs
// see about the same machine.
void measurePairs(const Options &options, const QString &store, const QString &what, Report &report)
{
    const int steps = options.quick ? 300 : 3000;  // 48,000 samples: within the 60,000 of one epoch
    const int pairs = options.quick ? 1 : std::max(options.repeats, 7);
    QList<double> with, without, ratios;
    for (int i = 0; i < pairs; ++i) {
        double rate[2] = {0, 0};  // without, with
        for (const bool team : {i % 2 == 0, i % 2 != 0})
            rate[team] = engineSamplesPerSecond(QStringLiteral("fashion-mnist-mlp"), 16, 100, steps, true, QStringLiteral("cpu"), QString(),
                                                team ? store : QString());
        without << rate[0];
        with << rate[1];
        ratios << rate[1] / rate[0];
        std::fprintf(stderr, "  pair %d: %.0f samples/s without a store, %.0f with one %s\n", i + 1, rate[0], rate[1], qPrintable(what));
    }
    report.add(QStringLiteral("team"), QStringLiteral("MLP, batch 16, with the database: no team store, paired with the store %1 (median)").arg(what),
               median(without), QStringLiteral("samples/s"));
    report.add(QStringLiteral("team"), QStringLiteral("MLP, batch 16, with the database: replicating to a store %1 (median)").arg(what), median(with),
               QStringLiteral("samples/s"));
    const double slowdown = (1.0 - median(ratios)) * 100;
    report.add(QStringLiteral("team"), QStringLiteral("training slowdown with a store %1 (median of the pairs' ratios)").arg(what), slowdown,
               QStringLiteral("%"), QStringLiteral("< 2"), slowdown < 2.0);
}

double processCpuSeconds()
{
    timespec time{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time);
    return time.tv_sec + time.tv_nsec / 1e9;
}

// What the replicator costs apart from the machine's swings: the process's CPU time while only the replicator runs
// (a run's database, nothing training) for `seconds`, against the store, per second of wall time. Without a store:
// the same wait with no replicator, the process's own floor (threads left from training).
double replicatorCpuShare(const QString &store, int seconds)
{
    QTemporaryDir dir;
    const QString dbPath = dir.filePath(QStringLiteral("runs.sqlite"));
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(dbPath);
    NewRun run;
    run.name = QStringLiteral("replicator benchmark");
    const qint64 id = db.value()->createRun(run).value();
    const double cpu = processCpuSeconds(), wall = now();
    TeamReplicator replicator;
    if (!store.isEmpty())
        replicator.start(dbPath, store, id, 2000, [](const QString &) {});
    QThread::sleep(seconds);
    replicator.stop();
    return (processCpuSeconds() - cpu) / (now() - wall);
}

void addCpuShare(const Options &options, const QString &store, const QString &what, Report &report)
{
    const int seconds = options.quick ? 4 : 20;
    const double floor = replicatorCpuShare(QString(), seconds) * 100;
    const double share = replicatorCpuShare(store, seconds) * 100;
    report.add(QStringLiteral("team"), QStringLiteral("replicator alone, store %1: CPU time per second of wall time (the process idle: %2 %)")
                                           .arg(what).arg(floor, 0, 'f', 3),
               share - floor, QStringLiteral("%"));
}

} // namespace

void benchTeamStore(const Options &options, Report &report)
{
    std::fprintf(stderr, "team\n");
    QTemporaryDir noServer;  // a socket folder where no server listens
    const QString down = QStringLiteral("host=%1 port=5432 dbname=trainyard").arg(noServer.path());
    int fd = -1;
    const int port = hungPort(&fd);
    const QString hung = QStringLiteral("host=127.0.0.1 port=%1 dbname=trainyard connect_timeout=2").arg(port);
    // The CPU figures first, before training leaves threads behind in the process (with `--only team`).
    addCpuShare(options, down, QStringLiteral("that is down"), report);
    if (port > 0)
        addCpuShare(options, hung, QStringLiteral("that hangs"), report);
    measurePairs(options, down, QStringLiteral("that is down"), report);
    if (port > 0)
        measurePairs(options, hung, QStringLiteral("that hangs"), report);
    if (fd >= 0)
        close(fd);
}

} // namespace ty::bench
