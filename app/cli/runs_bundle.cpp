#include "runs_bundle.h"

#include "cli.h"
#include "printable_text.h"
#include "run_bundle_export.h"
#include "run_bundle_import.h"

#include <QJsonArray>
#include <QJsonObject>

namespace ty::cli {

namespace {

QString idList(const QList<qint64> &ids)
{
    QStringList texts;
    for (qint64 id : ids)
        texts << QString::number(id);
    return texts.join(QStringLiteral(", "));
}

QJsonArray itemsJson(const QList<RunBundleImportReport::Item> &items)
{
    QJsonArray array;
    for (const RunBundleImportReport::Item &item : items)
        array << QJsonObject{{QStringLiteral("uuid"), item.uuid},
                             {QStringLiteral("bundle_id"), double(item.bundleId)},
                             {QStringLiteral("id"), double(item.id)},
                             {QStringLiteral("name"), item.name},
                             {QStringLiteral("added"), item.added}};
    return array;
}

} // namespace

int exportBundle(const QString &database, const QList<qint64> &runIds, const QList<qint64> &sweepIds, const QString &bundle,
                 bool withCheckpoints, Io &io)
{
    RunBundleExportRequest request;
    request.database = database;
    request.runIds = runIds;
    request.sweepIds = sweepIds;
    request.bundle = bundle;
    request.withCheckpoints = withCheckpoints;
    Result<RunBundleExportReport> report = exportRunBundle(request);
    if (!report) {
        printError(io, report.error());
        return BadInput;
    }
    for (const QString &skipped : report.value().skipped)
        io.err << "warning: checkpoint left out: " << printableExcerpt(skipped, 300) << "\n";
    io.out << QStringLiteral("wrote %1: %2 run%3 (%4)%5, %6 metric rows, %7 checkpoint%8, %9 evaluation%10, %11 bytes\n")
                  .arg(bundle)
                  .arg(report.value().runIds.size())
                  .arg(report.value().runIds.size() == 1 ? QString() : QStringLiteral("s"))
                  .arg(idList(report.value().runIds))
                  .arg(report.value().sweepIds.isEmpty() ? QString()
                                                         : QStringLiteral(", sweep%1 %2")
                                                               .arg(report.value().sweepIds.size() == 1 ? QString() : QStringLiteral("s"),
                                                                    idList(report.value().sweepIds)))
                  .arg(report.value().metricRows)
                  .arg(report.value().checkpoints)
                  .arg(report.value().checkpoints == 1 ? QString() : QStringLiteral("s"))
                  .arg(report.value().evaluations)
                  .arg(report.value().evaluations == 1 ? QString() : QStringLiteral("s"))
                  .arg(report.value().bytes);
    io.out.flush();
    return Success;
}

int importBundle(const QString &database, const QString &bundle, bool json, Io &io)
{
    Result<RunBundleImportReport> report = importRunBundle(database, bundle);
    if (!report) {
        printError(io, report.error());
        io.err << "nothing was imported\n";
        return BadInput;
    }
    const RunBundleImportReport &r = report.value();
    if (json) {
        printJson(io, QJsonObject{{QStringLiteral("bundle"), bundle},
                                  {QStringLiteral("database"), database},
                                  {QStringLiteral("runs"), itemsJson(r.runs)},
                                  {QStringLiteral("sweeps"), itemsJson(r.sweeps)},
                                  {QStringLiteral("metric_rows"), double(r.metricRows)},
                                  {QStringLiteral("checkpoints"), r.checkpoints},
                                  {QStringLiteral("evaluations"), r.evaluations}});
        return Success;
    }
    io.out << QStringLiteral("imported %1 of %2 run%3 and %4 of %5 sweep%6 from %7 into %8 (%9 metric rows, %10 checkpoints, %11 evaluations)\n")
                  .arg(r.runsAdded())
                  .arg(r.runs.size())
                  .arg(r.runs.size() == 1 ? QString() : QStringLiteral("s"))
                  .arg(r.sweepsAdded())
                  .arg(r.sweeps.size())
                  .arg(r.sweeps.size() == 1 ? QString() : QStringLiteral("s"))
                  .arg(bundle, database)
                  .arg(r.metricRows)
                  .arg(r.checkpoints)
                  .arg(r.evaluations);
    for (const RunBundleImportReport::Item &item : r.sweeps)
        io.out << QStringLiteral("  sweep %1 %2\n")
                      .arg(item.id)
                      .arg(!item.added ? QStringLiteral("was already here") : item.id == item.bundleId ? QStringLiteral("added")
                                                                                                         : QStringLiteral("added (sweep %1 in the bundle)").arg(item.bundleId));
    for (const RunBundleImportReport::Item &item : r.runs)
        io.out << QStringLiteral("  run %1 %2  %3\n")
                      .arg(item.id)
                      .arg(!item.added ? QStringLiteral("was already here") : item.id == item.bundleId ? QStringLiteral("added")
                                                                                                         : QStringLiteral("added (run %1 in the bundle)").arg(item.bundleId))
                      .arg(printableExcerpt(item.name, 80));
    io.out.flush();
    return Success;
}

} // namespace ty::cli
