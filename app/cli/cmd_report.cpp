// trainyard-cli report RUN_ID|--sweep ID --html FILE [--db PATH]: a run's or a sweep's report as one self-contained
// HTML file (core/reports, docs/reports.md). Reads the database only; without LibTorch.

#include "commands.h"
#include "run_database.h"
#include "run_report.h"

#include <QFileInfo>

namespace ty::cli {

namespace {

const char kReportUsage[] = "usage: trainyard-cli report RUN_ID --html FILE [--db PATH]\n"
                            "       trainyard-cli report --sweep ID --html FILE [--db PATH]\n";

} // namespace

int reportCommand(const QStringList &arguments, Io &io)
{
    const Args args = parseArgs(arguments, {QStringLiteral("db"), QStringLiteral("sweep"), QStringLiteral("html")}, {});
    const bool sweep = args.options.contains(QStringLiteral("sweep"));
    bool idOk = false;
    const qint64 id = (sweep ? args.option(QStringLiteral("sweep")) : args.positionals.value(0)).toLongLong(&idOk);
    const QString html = args.option(QStringLiteral("html"));
    if (!args.error.isEmpty() || !idOk || args.positionals.size() != (sweep ? 0 : 1) || html.isEmpty()) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n"))
               << (html.isEmpty() && args.error.isEmpty() ? QStringLiteral("report: --html FILE names the file to write\n") : QString())
               << kReportUsage;
        return BadInput;
    }
    // A report reads: a database that is not there is an error, not a new empty file.
    const QString path = databasePath(args);
    if (!QFileInfo::exists(path)) {
        printError(io, Error::inFile(path, QStringLiteral("no run database here")));
        return BadInput;
    }
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(path);
    if (!db) {
        printError(io, db.error());
        return BadInput;
    }
    const Result<QByteArray> page = sweep ? sweepReportHtml(*db.value(), id) : runReportHtml(*db.value(), id);
    if (!page) {
        printError(io, page.error());
        return BadInput;
    }
    if (const Status written = writeReportFile(html, page.value()); !written) {
        printError(io, written.error());
        return BadInput;
    }
    io.out << "wrote " << html << " (" << page.value().size() / 1024 << " KiB): the report of " << (sweep ? "sweep " : "run ") << id << "\n";
    return Success;
}

} // namespace ty::cli
