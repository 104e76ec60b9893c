// trainyard-cli: train and inspect Trainyard presets without a display.

#include "cli.h"
#include "host_allocator.h"

#include <QCoreApplication>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace {

void requestStop(int signal)
{
    // The first signal asks the run to checkpoint and stop. A second Ctrl-C ends the process at once; a second
    // SIGTERM does not (process managers and scripts repeat it, and the checkpoint under way is worth keeping).
    if (ty::cli::stopFlag().exchange(true) && signal == SIGINT)
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
    // A file-size limit (ulimit -f) then fails the write like a full disk, with a message, instead of killing us.
    std::signal(SIGXFSZ, SIG_IGN);

    QTextStream out(stdout);
    QTextStream err(stderr);
    ty::cli::Io io{out, err, isatty(fileno(stderr)) != 0};
    const int code = ty::cli::runCli(QCoreApplication::arguments().mid(1), io);
#if defined(__SANITIZE_ADDRESS__)
    return code;  // the leak check runs at exit
#else
    // Everything is written and closed when runCli returns (run databases, checkpoints, files). What is left
    // is tearing down LibTorch's thousands of static registrations and Qt: 50 ms after every run, for nothing.
    out.flush();
    err.flush();
    std::fflush(nullptr);
    std::_Exit(code);
#endif
}
