// trainyard-cli: train and inspect Trainyard presets without a display.

#include "cli.h"

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
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("trainyard-cli"));
    std::signal(SIGINT, requestStop);
    std::signal(SIGTERM, requestStop);

    QTextStream out(stdout);
    QTextStream err(stderr);
    ty::cli::Io io{out, err, isatty(fileno(stderr)) != 0};
    return ty::cli::runCli(QCoreApplication::arguments().mid(1), io);
}
