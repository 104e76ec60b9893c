// trainyard-cli runs list|show ID|metrics ID [--metric NAME] [--db PATH|--team URL] [--json] [--csv]

#include "commands.h"
#include "json_io.h"
#include "long_form_metrics.h"
#include "run_annotations.h"
#include "runs_bundle.h"
#include "runs_export.h"
#include "number_text.h"
#include "printable_text.h"
#include "run_database.h"
#include "run_process_state.h"
#include "run_speed.h"
#include "team_store.h"
#include "terminal_progress.h"

#include <algorithm>
#include <QJsonArray>
#include <cmath>

namespace ty::cli {

namespace {

QString durationText(const RunInfo &run)
{
    if (!run.startedAt.isValid())
        return QStringLiteral("-");
    const QDateTime end = run.endedAt.isValid() ? run.endedAt : (run.heartbeatAt.isValid() ? run.heartbeatAt : run.startedAt);
    return formatDuration(run.startedAt.msecsTo(end) / 1000.0);
}

// The figure that best sums a run up: the test accuracy, else the last validation loss.
QString keyMetric(const QMap<QString, double> &summary)
{
    for (const char *name : {"test/accuracy", "val/accuracy", "test/loss", "val/loss", "train/loss"})
        if (summary.contains(QString::fromLatin1(name)))
            return QStringLiteral("%1 %2").arg(QString::fromLatin1(name)).arg(summary.value(QString::fromLatin1(name)), 0, 'f', 4);
    return QString();
}

// A learning-rate range test's suggestions (RunInfo::result), as `runs list` shows them.
QString lrFindResultText(const QJsonObject &result)
{
    QStringList parts;
    for (const char *name : {"valley", "steepest"}) {
        const QJsonValue lr = result.value(QStringLiteral("suggestions")).toObject().value(QLatin1String(name)).toObject().value(QStringLiteral("lr"));
        if (lr.isDouble())
            parts << QStringLiteral("%1 %2").arg(QLatin1String(name)).arg(lr.toDouble(), 0, 'g', 3);
    }
    return parts.isEmpty() ? QStringLiteral("no suggestion") : QStringLiteral("lr ") + parts.join(QStringLiteral(", "));
}

QJsonObject runJson(const RunInfo &run, const QMap<QString, double> &summary)
{
    QJsonObject summaryJson;
    for (auto it = summary.constBegin(); it != summary.constEnd(); ++it)
        summaryJson.insert(it.key(), std::isfinite(it.value()) ? QJsonValue(it.value()) : QJsonValue());
    return QJsonObject{{QStringLiteral("id"), run.id}, {QStringLiteral("uuid"), run.uuid}, {QStringLiteral("name"), run.name},
                       {QStringLiteral("kind"), run.kind}, {QStringLiteral("result"), run.result.isEmpty() ? QJsonValue() : QJsonValue(run.result)},
                       {QStringLiteral("status"), runStatusName(run.status)},
                       {QStringLiteral("paused"), runStatusName(run.status) != shownRunStatus(run.status, run.host, run.pid)},
                       {QStringLiteral("status_message"), run.statusMessage}, {QStringLiteral("error_node"), run.errorNode},
                       {QStringLiteral("preset"), run.preset}, {QStringLiteral("preset_hash"), run.presetHash},
                       {QStringLiteral("created_at"), jsonTime(run.createdAt)}, {QStringLiteral("started_at"), jsonTime(run.startedAt)},
                       {QStringLiteral("ended_at"), jsonTime(run.endedAt)}, {QStringLiteral("heartbeat_at"), jsonTime(run.heartbeatAt)},
                       {QStringLiteral("app_version"), run.appVersion}, {QStringLiteral("torch_version"), run.torchVersion},
                       {QStringLiteral("qt_version"), run.qtVersion}, {QStringLiteral("device"), run.device},
                       {QStringLiteral("host"), run.host}, {QStringLiteral("pid"), run.pid}, {QStringLiteral("seed"), run.seed},
                       {QStringLiteral("provenance"), run.provenance}, {QStringLiteral("folder"), run.folder},
                       {QStringLiteral("notes"), run.notes}, {QStringLiteral("tags"), QJsonArray::fromStringList(run.tags)},
                       {QStringLiteral("hypothesis"), run.preset.value(QStringLiteral("hypothesis")).toString()},
                       {QStringLiteral("summary"), summaryJson},
                       {QStringLiteral("sweep"), run.sweepId > 0 ? QJsonValue(run.sweepId) : QJsonValue()},
                       {QStringLiteral("sweep_trial"), run.sweepId > 0 ? QJsonValue(run.sweepTrial) : QJsonValue()}};
}

// Where a run's first weights came from (provenance "init_from"), or null.
QJsonValue parentJson(const RunInfo &run)
{
    const QJsonObject parent = run.provenance.value(QStringLiteral("init_from")).toObject();
    return parent.isEmpty() ? QJsonValue() : QJsonValue(parent);
}

QString parentText(const QJsonObject &parent)
{
    const QString nodes = parent.contains(QStringLiteral("nodes"))
                              ? QStringLiteral(", nodes ") + parent.value(QStringLiteral("nodes")).toVariant().toStringList().join(QStringLiteral(", "))
                              : QString();
    if (parent.contains(QStringLiteral("run")))
        return QStringLiteral("run %1 (%2), checkpoint at step %3%4")
            .arg(parent.value(QStringLiteral("run")).toInteger())
            .arg(printableExcerpt(parent.value(QStringLiteral("run_name")).toString(), 60))
            .arg(parent.value(QStringLiteral("checkpoint_step")).toInteger()).arg(nodes);
    if (!parent.contains(QStringLiteral("file")) && parent.contains(QStringLiteral("run_uuid")))  // a bundle's or teammate's run not here
        return QStringLiteral("run %1 of another run database (uuid %2), not here%3")
            .arg(printableExcerpt(parent.value(QStringLiteral("run_name")).toString(), 60),
                 printableExcerpt(parent.value(QStringLiteral("run_uuid")).toString(), 40), nodes);
    if (!parent.contains(QStringLiteral("file")))  // pushed by a build before run_uuid: only its name is known here
        return QStringLiteral("run %1 of another run database, not here%2")
            .arg(printableExcerpt(parent.value(QStringLiteral("run_name")).toString(), 60), nodes);
    return QStringLiteral("%1 (sha256 %2...)%3").arg(printableExcerpt(parent.value(QStringLiteral("file")).toString(), 200),
                                                   parent.value(QStringLiteral("sha256")).toString().left(12), nodes);
}

// The import report of a warm start (parent.import): its counts, then each tensor not copied.
QStringList importText(const QJsonObject &report)
{
    if (report.isEmpty())
        return {};
    const QJsonObject counts = report.value(QStringLiteral("counts")).toObject();
    QStringList lines{QStringLiteral("map %1%2: %3 copied, %4 skipped, %5 missing, %6 mismatched")
                          .arg(printableExcerpt(report.value(QStringLiteral("map")).toString(), 60),
                               report.value(QStringLiteral("strict")).toBool() ? QStringLiteral(" (strict)") : QString())
                          .arg(counts.value(QStringLiteral("copied")).toInt()).arg(counts.value(QStringLiteral("skipped")).toInt())
                          .arg(counts.value(QStringLiteral("missing")).toInt()).arg(counts.value(QStringLiteral("mismatched")).toInt())};
    for (const char *kind : {"skipped", "missing", "mismatched"})
        for (const QJsonValue &v : report.value(QLatin1String(kind)).toArray()) {
            const QJsonObject e = v.toObject();
            const QString name = e.contains(QStringLiteral("tensor")) ? e.value(QStringLiteral("tensor")).toString()
                                                                      : e.value(QStringLiteral("file_tensor")).toString();
            lines << QStringLiteral("  %1 %2: %3").arg(QString::fromLatin1(kind).leftJustified(10), printableExcerpt(name, 200),
                                                       printableExcerpt(e.value(QStringLiteral("reason")).toString(), 300));
        }
    return lines;
}

int listRuns(RunDatabase &db, const Args &args, Io &io)
{
    // Two queries whatever the number of runs: the runs without their presets, and every run's last values.
    Result<QList<RunInfo>> runs = db.listRuns();
    if (!runs) {
        printError(io, runs.error());
        return BadInput;
    }
    // --tag TAG (repeatable): the runs with every one of them.
    const QStringList wanted = args.lists.value(QStringLiteral("tag"));
    if (!wanted.isEmpty())
        runs.value().erase(std::remove_if(runs.value().begin(), runs.value().end(),
                                          [&](const RunInfo &run) {
                                              return std::any_of(wanted.begin(), wanted.end(), [&](const QString &tag) {
                                                  return !run.tags.contains(tag.trimmed());
                                              });
                                          }),
                           runs.value().end());
    // --kind train|lrfind: the runs of that kind (checked by runsCommand).
    if (args.options.contains(QStringLiteral("kind"))) {
        const QString kind = args.option(QStringLiteral("kind"));
        runs.value().erase(std::remove_if(runs.value().begin(), runs.value().end(), [&](const RunInfo &run) { return run.kind != kind; }),
                           runs.value().end());
    }
    const Result<QHash<qint64, QMap<QString, double>>> values = db.lastMetricValuesOfRuns();
    if (!values) {
        printError(io, values.error());
        return RunFailed;
    }
    if (args.flag(QStringLiteral("json"))) {
        JsonArrayPrinter printer(io);
        for (const RunInfo &run : runs.value()) {
            QJsonObject o = runJson(run, values.value().value(run.id));
            o.remove(QStringLiteral("preset"));  // listRuns() reads none
            o.remove(QStringLiteral("hypothesis"));  // it is the preset's
            printer.add(o);
        }
        printer.finish();
        return Success;
    }
    io.out << QStringLiteral("%1  %2  %3  %4  %5  %6  %7\n").arg(QStringLiteral("id").rightJustified(5), QStringLiteral("status").leftJustified(11),
                                                                  QStringLiteral("kind").leftJustified(6),
                                                                  QStringLiteral("created (UTC)").leftJustified(19), QStringLiteral("time").rightJustified(8),
                                                                  QStringLiteral("name").leftJustified(24), QStringLiteral("result"));
    for (const RunInfo &run : runs.value()) {
        const bool lrFind = run.kind == QLatin1String(kRunKindLrFind);
        io.out << QStringLiteral("%1  %2  %3  %4  %5  %6  %7\n")
                      .arg(QString::number(run.id).rightJustified(5), shownRunStatus(run.status, run.host, run.pid).leftJustified(11),
                           printableExcerpt(run.kind, 12).leftJustified(6),
                           run.createdAt.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")), durationText(run).rightJustified(8),
                           printableExcerpt(run.name, 60).leftJustified(24),
                           lrFind ? lrFindResultText(run.result) : keyMetric(values.value().value(run.id)));
    }
    return Success;
}

int showRun(RunDatabase &db, qint64 id, const Args &args, Io &io)
{
    Result<RunInfo> run = db.run(id);
    if (!run) {
        printError(io, run.error());
        return BadInput;
    }
    const Result<QMap<QString, double>> values = db.lastMetricValues(id);
    const Result<QList<CheckpointRecord>> recorded = db.checkpoints(id);
    const Result<QList<RunEvent>> runEvents = db.events(id);
    const Result<QList<StageRecord>> runStages = db.stages(id);
    const Result<RunSpeed> speed = runSpeed(db, id);
    if (!values || !recorded || !runEvents || !runStages || !speed) {
        printError(io, !values ? values.error() : !recorded ? recorded.error() : !runEvents ? runEvents.error()
                                                : !runStages ? runStages.error() : speed.error());
        return RunFailed;
    }
    const QMap<QString, double> &summary = values.value();
    if (args.flag(QStringLiteral("json"))) {
        QJsonObject o = runJson(run.value(), summary);
        QJsonArray checkpoints, events;
        for (const CheckpointRecord &c : recorded.value())
            checkpoints.append(QJsonObject{{QStringLiteral("step"), c.step}, {QStringLiteral("epoch"), c.epoch}, {QStringLiteral("path"), c.path},
                                           {QStringLiteral("sha256"), c.sha256.isEmpty() ? QJsonValue() : QJsonValue(c.sha256)},
                                           {QStringLiteral("kind"), c.best ? QStringLiteral("best") : QStringLiteral("periodic")}});
        for (const RunEvent &e : runEvents.value())
            events.append(QJsonObject{{QStringLiteral("step"), e.step}, {QStringLiteral("time"), e.time},
                                      {QStringLiteral("kind"), e.kind}, {QStringLiteral("message"), e.message}});
        QJsonArray stages;
        for (const StageRecord &s : runStages.value())
            stages.append(QJsonObject{{QStringLiteral("name"), s.name}, {QStringLiteral("start_step"), s.startStep},
                                      {QStringLiteral("end_step"), s.endStep >= 0 ? QJsonValue(s.endStep) : QJsonValue()},
                                      {QStringLiteral("epochs"), s.epochs}, {QStringLiteral("frozen"), QJsonArray::fromStringList(s.frozen)}});
        o.insert(QStringLiteral("checkpoints"), checkpoints);
        o.insert(QStringLiteral("events"), events);
        o.insert(QStringLiteral("stages"), stages);
        o.insert(QStringLiteral("parent"), parentJson(run.value()));
        QJsonObject speedJson{{QStringLiteral("reports"), speed.value().reports},
                              {QStringLiteral("samples_per_s"), speed.value().samplesPerSecond},
                              {QStringLiteral("step_ms"), speed.value().stepMs},
                              {QStringLiteral("peak_rss_mb"), speed.value().peakRssMb}};
        if (speed.value().peakCudaMb >= 0)
            speedJson.insert(QStringLiteral("peak_cuda_mb"), speed.value().peakCudaMb);
        for (auto it = speed.value().phaseMs.constBegin(); it != speed.value().phaseMs.constEnd(); ++it)
            speedJson.insert(it.key() + QStringLiteral("_ms"), it.value());
        o.insert(QStringLiteral("speed"), speed.value().empty() ? QJsonValue() : QJsonValue(speedJson));
        printJson(io, o);
        return Success;
    }
    const RunInfo &r = run.value();
    io.out << "run " << r.id << ": " << printableExcerpt(r.name, 1000) << "\n"
           << "  status     " << shownRunStatus(r.status, r.host, r.pid) << (r.statusMessage.isEmpty() ? QString() : QStringLiteral(" (") + printableExcerpt(r.statusMessage, 1000) + QLatin1Char(')')) << "\n"
           << "  created    " << r.createdAt.toString(Qt::ISODate) << "   duration " << durationText(r) << "\n"
           << "  device     " << r.device << " on " << r.host << ", seed " << r.seed << "\n"
           << "  versions   Trainyard " << r.appVersion << ", LibTorch " << r.torchVersion << ", Qt " << r.qtVersion << "\n"
           << "  preset     " << printableExcerpt(r.preset.value(QStringLiteral("name")).toString(), 200) << " (sha256 " << r.presetHash.left(12) << ")\n"
           << "  folder     " << r.folder << "\n";
    if (!r.errorNode.isEmpty())
        io.out << "  error at   node " << r.errorNode << "\n";
    if (const QString hypothesis = r.preset.value(QStringLiteral("hypothesis")).toString(); !hypothesis.isEmpty())
        io.out << "  hypothesis " << printableExcerpt(hypothesis, 1000) << "\n";
    if (!r.tags.isEmpty())
        io.out << "  tags       " << r.tags.join(QStringLiteral(", ")) << "\n";
    if (!r.notes.isEmpty())
        io.out << "  notes      " << printableExcerpt(r.notes, 1000) << "\n";
    if (r.sweepId > 0)
        io.out << "  sweep      " << r.sweepId << ", trial " << r.sweepTrial << " (trainyard-cli sweeps show " << r.sweepId << ")\n";
    if (const QJsonObject parent = r.provenance.value(QStringLiteral("init_from")).toObject(); !parent.isEmpty()) {
        io.out << "  parent     " << parentText(parent) << "\n";
        for (const QString &line : importText(parent.value(QStringLiteral("import")).toObject()))
            io.out << "  " << (line.startsWith(QLatin1Char(' ')) ? QStringLiteral("          ") : QStringLiteral("import     ")) << line << "\n";
    }
    for (const StageRecord &s : runStages.value())
        io.out << "  stage " << (s.index + 1) << "    " << printableExcerpt(s.name, 60) << ": steps " << s.startStep << " to "
               << (s.endStep >= 0 ? QString::number(s.endStep) : QStringLiteral("...")) << " (" << s.epochs << " epochs"
               << (s.frozen.isEmpty() ? QString() : QStringLiteral(", frozen ") + s.frozen.join(QStringLiteral(", "))) << ")\n";
    if (const QJsonObject distributed = r.provenance.value(QStringLiteral("distributed")).toObject(); !distributed.isEmpty())
        io.out << "  processes  " << distributed.value(QStringLiteral("world_size")).toInt() << " ("
               << distributed.value(QStringLiteral("backend")).toString() << ", started by "
               << distributed.value(QStringLiteral("launcher")).toString() << ")\n";
    if (!speed.value().empty())
        io.out << "  speed      " << runSpeedText(speed.value()) << "\n";
    io.out << "  last values:\n";
    for (auto it = summary.constBegin(); it != summary.constEnd(); ++it)
        if (!it.key().startsWith(QStringLiteral("speed/")))
            io.out << "    " << it.key().leftJustified(24) << " " << QString::number(it.value(), 'g', 6) << "\n";
    const QList<CheckpointRecord> &checkpoints = recorded.value();
    if (!checkpoints.isEmpty())
        io.out << "  last checkpoint (step " << checkpoints.last().step << "): " << checkpoints.last().path << "\n";
    return Success;
}

int showMetrics(RunDatabase &db, qint64 id, const Args &args, Io &io)
{
    if (Result<RunInfo> run = db.run(id); !run) {
        printError(io, run.error());
        return BadInput;
    }
    Result<QList<MetricPoint>> metrics = db.metrics(id, args.option(QStringLiteral("metric")));
    if (!metrics) {
        printError(io, metrics.error());
        return BadInput;
    }
    if (args.flag(QStringLiteral("json"))) {
        QJsonArray array;
        for (const MetricPoint &m : metrics.value())
            array.append(QJsonObject{{QStringLiteral("name"), m.name}, {QStringLiteral("step"), m.step}, {QStringLiteral("epoch"), m.epoch},
                                     {QStringLiteral("time"), m.time}, {QStringLiteral("value"), std::isfinite(m.value) ? QJsonValue(m.value) : QJsonValue()}});
        printJson(io, array);
        return Success;
    }
    const bool csv = args.flag(QStringLiteral("csv"));
    const QString sep = csv ? QStringLiteral(",") : QStringLiteral("\t");
    io.out << "name" << sep << "step" << sep << "epoch" << sep << "time" << sep << "value\n";
    for (const MetricPoint &m : metrics.value())
        io.out << delimitedField(m.name, sep.front()) << sep << m.step << sep << m.epoch << sep << QString::number(m.time, 'f', 3) << sep
               << shortestNumberText(m.value) << "\n";
    return Success;
}

// runs metrics ID ID...: every run's rows in long form (long_form_metrics.h), each row with its run's id and uuid.
// Every id is checked before anything is printed; one run's rows are in memory at a time.
int showMetricsOfRuns(RunDatabase &db, const QList<qint64> &ids, const Args &args, Io &io)
{
    QList<RunInfo> runs;
    if (!readRuns(db, ids, &runs, io))
        return BadInput;
    const QString metric = args.option(QStringLiteral("metric"));
    if (!args.flag(QStringLiteral("json"))) {
        const LongFormOptions options{args.flag(QStringLiteral("csv")) ? QLatin1Char(',') : QLatin1Char('\t'), metric};
        if (const Result<qint64> written = writeLongFormMetrics(db, runs, io.out, options); !written) {
            printError(io, written.error());
            return RunFailed;
        }
        return Success;
    }
    JsonArrayPrinter printer(io);
    for (const RunInfo &run : runs) {
        Result<QList<MetricPoint>> metrics = db.metrics(run.id, metric);
        if (!metrics) {
            printError(io, metrics.error());
            return RunFailed;
        }
        for (const MetricPoint &m : metrics.value())
            printer.add(QJsonObject{{QStringLiteral("run"), run.id}, {QStringLiteral("uuid"), run.uuid},
                                    {QStringLiteral("name"), m.name}, {QStringLiteral("step"), m.step},
                                    {QStringLiteral("epoch"), m.epoch}, {QStringLiteral("time"), m.time},
                                    {QStringLiteral("value"), std::isfinite(m.value) ? QJsonValue(m.value) : QJsonValue()}});
    }
    printer.finish();
    return Success;
}

} // namespace

int runsCommand(const QStringList &arguments, Io &io)
{
    const Args args = parseArgs(arguments,
                                {QStringLiteral("db"), QStringLiteral("metric"), QStringLiteral("tag"), QStringLiteral("tensorboard"),
                                 QStringLiteral("bundle"), QStringLiteral("team"), QStringLiteral("kind")},
                                {QStringLiteral("json"), QStringLiteral("csv"), QStringLiteral("remove"), QStringLiteral("without-checkpoints")});
    const QString sub = args.positionals.value(0);
    const QString tensorboard = args.option(QStringLiteral("tensorboard"));
    const QString bundle = args.option(QStringLiteral("bundle"));
    const bool needsId = sub == QStringLiteral("show") || sub == QStringLiteral("metrics") || sub == QStringLiteral("note")
                         || sub == QStringLiteral("tag") || sub == QStringLiteral("export");
    bool idOk = false;
    const qint64 id = args.positionals.value(1).toLongLong(&idOk);
    const qsizetype count = args.positionals.size();
    QList<qint64> ids;  // runs metrics ID ID...
    bool idsOk = true;
    for (const QString &text : args.positionals.mid(1)) {
        bool ok = false;
        ids << text.toLongLong(&ok);
        idsOk = idsOk && ok;
    }
    const bool shapeOk = sub == QStringLiteral("list")      ? count == 1
                         : sub == QStringLiteral("note")    ? count == 3
                         : sub == QStringLiteral("tag")     ? count >= 3
                         : sub == QStringLiteral("metrics") ? count >= 2 && idsOk
                         : sub == QStringLiteral("export")  ? count >= 2 && idsOk && tensorboard.isEmpty() != bundle.isEmpty()
                         : sub == QStringLiteral("import")  ? count == 2
                                                            : count == 2;
    const bool knownSub = sub == QStringLiteral("list") || sub == QStringLiteral("import") || needsId;
    const bool team = args.options.contains(QStringLiteral("team"));
    const bool teamOk = !team || sub == QStringLiteral("list") || sub == QStringLiteral("show") || sub == QStringLiteral("metrics");
    if (args.options.contains(QStringLiteral("kind")) && args.option(QStringLiteral("kind")) != QLatin1String(kRunKindTrain)
        && args.option(QStringLiteral("kind")) != QLatin1String(kRunKindLrFind)) {
        io.err << "--kind: expected train or lrfind, got '" << printableExcerpt(args.option(QStringLiteral("kind")), 60) << "'\n";
        return BadInput;
    }
    if (!args.error.isEmpty() || !knownSub || (needsId && !idOk) || !shapeOk || !teamOk) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n"))
               << "usage: trainyard-cli runs list [--tag TAG] [--kind train|lrfind] [--db PATH|--team URL] [--json]\n"
                  "       trainyard-cli runs show ID [--db PATH|--team URL] [--json]\n"
                  "       trainyard-cli runs metrics ID... [--metric NAME] [--db PATH|--team URL] [--csv|--json]\n"
                  "       trainyard-cli runs note ID TEXT [--db PATH]          (\"\" clears the notes)\n"
                  "       trainyard-cli runs tag ID TAG... [--remove] [--db PATH]\n"
                  "       trainyard-cli runs export ID... --tensorboard DIR [--db PATH]\n"
                  "       trainyard-cli runs export ID... --bundle FILE [--without-checkpoints] [--db PATH]\n"
                  "       trainyard-cli runs import FILE [--db PATH] [--json]\n";
        return BadInput;
    }
    // The team store's runs (docs/team.md), printed by the same functions as a local database's, with the store's ids.
    if (team)
        return withTeamRuns(args.option(QStringLiteral("team")), sub, sub == QStringLiteral("list") ? QList<qint64>() : ids, args, io,
                            [&](RunDatabase &db) {
                                if (sub == QStringLiteral("list"))
                                    return listRuns(db, args, io);
                                if (sub == QStringLiteral("show"))
                                    return showRun(db, id, args, io);
                                return ids.size() > 1 ? showMetricsOfRuns(db, ids, args, io) : showMetrics(db, id, args, io);
                            });
    // Bundles read and write the database themselves: an import checks the whole bundle before the database is
    // even created, an export reads it without opening it for writing.
    if (sub == QStringLiteral("import"))
        return importBundle(databasePath(args), args.positionals.value(1), args.flag(QStringLiteral("json")), io);
    if (sub == QStringLiteral("export") && !bundle.isEmpty()) {
        if (Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(databasePath(args)); !db) {  // marks dead runs interrupted
            printError(io, db.error());
            return BadInput;
        }
        return exportBundle(databasePath(args), ids, {}, bundle, !args.flag(QStringLiteral("without-checkpoints")), io);
    }
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(databasePath(args));
    if (!db) {
        printError(io, db.error());
        return BadInput;
    }
    if (sub == QStringLiteral("list"))
        return listRuns(*db.value(), args, io);
    if (sub == QStringLiteral("show"))
        return showRun(*db.value(), id, args, io);
    if (sub == QStringLiteral("note"))
        return noteCommand(*db.value(), id, args, io);
    if (sub == QStringLiteral("tag"))
        return tagCommand(*db.value(), id, args, io);
    if (sub == QStringLiteral("export"))
        return exportRunsToTensorBoard(*db.value(), ids, tensorboard, io);
    return ids.size() > 1 ? showMetricsOfRuns(*db.value(), ids, args, io) : showMetrics(*db.value(), id, args, io);
}

} // namespace ty::cli
