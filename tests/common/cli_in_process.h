#pragma once
// trainyard-cli's commands run in the test's own process (cli::runCli), with what they print captured: for the
// suites that link the CLI library (tests/cli, tests/export).

#include "cli.h"
#include "program_run.h"

#include <QString>
#include <QStringList>
#include <QTextStream>

namespace tytest {

inline CliOutput trainyard(const QStringList &arguments)
{
    CliOutput o;
    QTextStream out(&o.out), err(&o.err);
    ty::cli::Io io{out, err, false};
    ty::cli::stopFlag().store(false);  // each command starts without a stop request, as a new process would
    o.code = ty::cli::runCli(arguments, io);
    return o;
}

} // namespace tytest
