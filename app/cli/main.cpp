// trainyard-cli: train and inspect Trainyard presets without a display.

#include "cli.h"
#include "host_allocator.h"

#include <QCoreApplication>

#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace {

void requestStop(int)
{
    // A second Ctrl-C ends the process at once; the first asks the run to checkpoint and stop.
    if (ty::cli::stopFlag().exchange(true))
        std::_Exit(ty::cli::Stopped);
}

} // namespace

int main(int argc, char **argv)
{
    // Before anything is allocated: every process that trains is a trainyard-cli (the app's workers, sweep
    // trials, distributed ranks), and its steps must not fault in fresh pages (host_allocator.h).
    ty::configureHostAllocatorForTraining();
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("trainyard-cli"));
    std::signal(SIGINT, requestStop);
    std::signal(SIGTERM, requestStop);

    QTextStream out(stdout);
    QTextStream err(stderr);
    ty::cli::Io io{out, err, isatty(fileno(stderr)) != 0};
    return ty::cli::runCli(QCoreApplication::arguments().mid(1), io);
}
