// trainyard-cli sweep PRESET|SWEEP_FILE [--overlay FILE]... [--set K=V]... [--grid K=V1,V2,...]... [--random K=DIST]...
//                    [--trials N] [--parallel P] [--metric NAME] [--maximize|--minimize] [--early-stop none|median|asha]
//                    [--seed S] [--name NAME] [--db PATH] [--tensorboard DIR] [--team URL [--max-trials N] [--lease S]]
//                    [--json] [--quiet]
// trainyard-cli sweep resume ID [--db PATH] [--json] [--quiet]
// trainyard-cli sweep worker ID --team URL [--db PATH] [--parallel P] [--max-trials N] [--lease S] [--json] [--quiet]

#include "commands.h"
#include "json_io.h"
#include "live_tensorboard.h"
#include "preset_format.h"
#include "preset_overlay.h"
#include "preset_overrides.h"
#include "run_database.h"
#include "sweep_driver.h"
#include "sweep_report.h"
#include "sweep_spec.h"
#include "sweep_trials.h"
#include "pg_connection.h"
#include "team_store.h"
#include "team_sweep_commands.h"

#include <QFileInfo>
#include <QJsonArray>

#include <optional>

namespace ty::cli {

namespace {

const char kSweepUsage[] =
    "usage: trainyard-cli sweep PRESET|SWEEP_FILE [--overlay FILE]... [--set KEY=VALUE]... [--grid KEY=V1,V2,...]...\n"
    "           [--random KEY=DIST]... [--trials N] [--parallel P] [--metric NAME] [--maximize|--minimize]\n"
    "           [--early-stop none|median|asha] [--seed S] [--name NAME] [--db PATH] [--tensorboard DIR]\n"
    "           [--team URL [--max-trials N] [--lease S]] [--json] [--quiet]\n"
    "       trainyard-cli sweep resume ID [--db PATH] [--json] [--quiet]\n"
    "       trainyard-cli sweep worker ID --team URL [--db PATH] [--parallel P] [--max-trials N] [--lease S] [--json] [--quiet]\n"
    "DIST: uniform(a,b), loguniform(a,b), int(a,b) or choice(x,y,...)\n";

// The sweep file's JSON when `path` is one (by its name, or for another name by its "format"), read once; nullopt
// for a preset, which its own loader reads (with line and column in its errors).
Result<std::optional<QJsonObject>> sweepFileJson(const QString &path)
{
    if (path.endsWith(QLatin1String(".trainyard.json")))
        return std::optional<QJsonObject>();
    Result<QJsonObject> json = readJsonObjectFile(path);
    const bool named = path.endsWith(QLatin1String(".trainyard-sweep.json"));
    if (!json)
        return named ? Result<std::optional<QJsonObject>>(json.error()) : std::optional<QJsonObject>();
    if (named || json.value().value(QStringLiteral("format")).toString() == QLatin1String("trainyard-sweep"))
        return std::optional<QJsonObject>(json.value());
    return std::optional<QJsonObject>();
}

Result<int> positiveOption(const Args &args, const QString &name)
{
    bool ok = false;
    const int value = args.option(name).toInt(&ok);
    if (!ok || value < 1)
        return Error::atField(name, QStringLiteral("--%1 must be a whole number of at least 1, not '%2'").arg(name, args.option(name)));
    return value;
}

// The spec from a sweep file or a preset path, with the command line's options over the file's.
Result<SweepSpec> specFromArguments(const Args &args)
{
    const QString source = args.positionals.first();
    SweepSpec spec;
    const Result<std::optional<QJsonObject>> sweepFile = sweepFileJson(source);
    if (!sweepFile)
        return sweepFile.error();
    if (sweepFile.value()) {
        Result<SweepSpec> loaded = sweepSpecFromJson(*sweepFile.value(), source);
        if (!loaded)
            return loaded.error();
        spec = loaded.value();
    } else {
        spec.presetFile = QFileInfo(source).absoluteFilePath();
    }
    for (const QString &overlay : args.overlays)
        spec.overlays.append(QFileInfo(overlay).absoluteFilePath());
    spec.sets += args.sets;
    for (const QString &grid : args.lists.value(QStringLiteral("grid"))) {
        Result<SweepDimension> dim = parseGridDimension(grid);
        if (!dim)
            return dim.error();
        spec.grid.append(dim.value());
    }
    for (const QString &random : args.lists.value(QStringLiteral("random"))) {
        Result<SweepDimension> dim = parseRandomDimension(random);
        if (!dim)
            return dim.error();
        spec.random.append(dim.value());
    }
    for (const char *name : {"trials", "parallel"}) {
        const QString option = QString::fromLatin1(name);
        if (!args.options.contains(option))
            continue;
        Result<int> value = positiveOption(args, option);
        if (!value)
            return value.error();
        (option == QLatin1String("trials") ? spec.trials : spec.parallel) = value.value();
    }
    if (args.options.contains(QStringLiteral("metric")))
        spec.metric = args.option(QStringLiteral("metric"));
    if (args.flag(QStringLiteral("maximize")) && args.flag(QStringLiteral("minimize")))
        return Error(QStringLiteral("--maximize and --minimize exclude each other"));
    if (args.flag(QStringLiteral("maximize")))
        spec.goal = QStringLiteral("maximize");
    if (args.flag(QStringLiteral("minimize")))
        spec.goal = QStringLiteral("minimize");
    if (args.options.contains(QStringLiteral("early-stop")))
        spec.earlyStop = args.option(QStringLiteral("early-stop"));
    if (args.options.contains(QStringLiteral("seed"))) {
        bool ok = false;
        spec.seed = args.option(QStringLiteral("seed")).toULongLong(&ok);
        if (!ok)
            return Error::atField(QStringLiteral("seed"), QStringLiteral("--seed must be a non-negative whole number"));
    }
    if (args.options.contains(QStringLiteral("name")))
        spec.name = args.option(QStringLiteral("name"));
    if (Status checked = checkSweepSpec(spec); !checked)
        return checked.error();
    return spec;
}

// The preset every trial starts from: the file (or the embedded preset) with overlays and fixed --set applied.
Result<Preset> basePreset(const SweepSpec &spec)
{
    Result<Preset> loaded = Error();
    if (!spec.embeddedPreset.isEmpty()) {
        if (!spec.overlays.isEmpty())
            return Error::inFile(spec.presetFile, QStringLiteral("overlays need a preset file, not an embedded preset"), QStringLiteral("overlays"));
        loaded = presetFromJson(spec.embeddedPreset, spec.presetFile);
    } else {
        loaded = loadPresetWithOverlays(spec.presetFile, spec.overlays);
    }
    if (!loaded)
        return loaded.error();
    Preset preset = loaded.value();
    if (Status applied = applyOverrides(&preset, spec.sets); !applied) {
        Error e = applied.error();
        e.file = spec.presetFile;
        return e;
    }
    return preset;
}

int finish(RunDatabase &db, qint64 id, int code, const Args &args, Io &io)
{
    Result<SweepRecord> sweep = db.sweep(id);
    Result<QList<SweepTrialRow>> rows = sweep ? sweepTrialRows(db, sweep.value()) : Result<QList<SweepTrialRow>>(sweep.error());
    if (!rows) {
        reportError(rows.error(), args, io);
        return RunFailed;
    }
    if (args.flag(QStringLiteral("json")))
        printJson(io, sweepJson(sweep.value(), rows.value()));
    else if (!args.flag(QStringLiteral("quiet")))
        printSweepTable(io, sweep.value(), rows.value());
    return code;
}

int resumeSweep(const Args &args, Io &io)
{
    bool ok = false;
    const qint64 id = args.positionals.value(1).toLongLong(&ok);
    if (!ok || args.positionals.size() != 2) {
        io.err << kSweepUsage;
        return BadInput;
    }
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(databasePath(args));
    if (!db) {
        reportError(db.error(), args, io);
        return BadInput;
    }
    if (Result<SweepRecord> recorded = db.value()->sweep(id); recorded && recorded.value().spec.contains(QLatin1String(kTeamSweepKey))) {
        reportError(Error(QStringLiteral("sweep %1 is a team sweep, its trials claimed on the team store %2: continue it there with "
                                         "trainyard-cli sweep worker ID --team URL (its ID there: trainyard-cli sweeps list --team URL)")
                              .arg(id).arg(recorded.value().spec.value(QLatin1String(kTeamSweepKey)).toString())),
                    args, io);
        return BadInput;
    }
    if (Status claimed = db.value()->claimSweep(id); !claimed) {
        reportError(claimed.error(), args, io);
        return BadInput;
    }
    Result<SweepRecord> sweep = db.value()->sweep(id);
    if (!sweep) {
        reportError(sweep.error(), args, io);
        return BadInput;
    }
    SweepDriveOptions options;
    options.quiet = args.flag(QStringLiteral("quiet")) || args.flag(QStringLiteral("json"));
    const int code = driveSweep(*db.value(), sweep.value(), io, options);
    return finish(*db.value(), id, code, args, io);
}

} // namespace

int sweepCommand(const QStringList &arguments, Io &io)
{
    Args args = parseArgs(arguments,
                          {QStringLiteral("db"), QStringLiteral("name"), QStringLiteral("overlay"), QStringLiteral("grid"),
                           QStringLiteral("random"), QStringLiteral("trials"), QStringLiteral("parallel"), QStringLiteral("metric"),
                           QStringLiteral("early-stop"), QStringLiteral("seed"), QStringLiteral("tensorboard"), QStringLiteral("team"),
                           QStringLiteral("max-trials"), QStringLiteral("lease")},
                          {QStringLiteral("json"), QStringLiteral("quiet"), QStringLiteral("maximize"), QStringLiteral("minimize")});
    if (!args.error.isEmpty() || args.positionals.isEmpty()) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n")) << kSweepUsage;
        return BadInput;
    }
    if (args.positionals.first() == QLatin1String("resume"))
        return resumeSweep(args, io);
    if (args.positionals.first() == QLatin1String("worker"))
        return teamSweepWorker(args, io);
    // A team sweep (docs/team.md#sweeps-over-many-machines): --team, or the environment's TRAINYARD_TEAM.
    const QString team = trainingTeamStore(args);
    if (!teamSweepOptionsOk(args, io))
        return BadInput;
    if (args.positionals.size() != 1) {
        io.err << kSweepUsage;
        return BadInput;
    }
    // Every trial logs to TensorBoard: a fixed --set of the sweep, recorded with it (sweep resume goes on with it).
    applyTensorBoardOption(&args);
    // Everything is checked before anything is recorded: the spec, the base preset, every trial's preset.
    Result<SweepSpec> spec = specFromArguments(args);
    if (!spec) {
        Error e = spec.error();
        if (e.file.isEmpty())
            e.file = args.positionals.first();
        reportError(e, args, io);
        return BadInput;
    }
    Result<Preset> base = basePreset(spec.value());
    Result<QList<SweepTrial>> trials = base ? expandSweep(spec.value()) : Result<QList<SweepTrial>>(base.error());
    const Status checked = trials ? checkTrialPresets(base.value(), trials.value(), spec.value().presetFile) : Status(trials.error());
    const QString tensorBoardDir = checked ? tensorBoardDirOf(base.value()) : QString();
    const Status writable = tensorBoardDir.isEmpty() ? Status::success() : checkTensorBoardDir(tensorBoardDir, spec.value().presetFile);
    if (!checked || !writable) {
        reportError(!checked ? checked.error() : writable.error(), args, io);
        io.err << "nothing was run or recorded\n";
        return BadInput;
    }

    if (!team.isEmpty() && !teamStoreReady(team, args, io))
        return RunFailed;
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(databasePath(args));
    if (!db) {
        reportError(db.error(), args, io);
        return BadInput;
    }
    NewSweep sweep;
    sweep.name = !spec.value().name.isEmpty() ? spec.value().name
                                              : QStringLiteral("%1 sweep").arg(!base.value().name.isEmpty() ? base.value().name
                                                                                                           : QFileInfo(spec.value().presetFile).completeBaseName());
    sweep.spec = sweepSpecToJson(spec.value());
    if (!team.isEmpty())  // its trials are claimed on the store: `sweep resume` here would train them a second time
        sweep.spec.insert(QLatin1String(kTeamSweepKey), redactedConninfo(team).value());
    sweep.preset = presetToJson(base.value());
    sweep.presetFile = spec.value().presetFile;
    for (const SweepTrial &trial : trials.value())
        sweep.trials.append(sweepTrialToJson(trial));
    sweep.metric = spec.value().effectiveMetric();
    sweep.maximize = spec.value().maximize();
    Result<qint64> created = db.value()->createSweep(sweep);
    if (!created) {
        reportError(created.error(), args, io);
        return BadInput;
    }
    Result<SweepRecord> record = db.value()->sweep(created.value());
    if (!record) {
        reportError(record.error(), args, io);
        return RunFailed;
    }
    if (!team.isEmpty())
        return driveNewTeamSweep(*db.value(), record.value(), team, args, io);
    SweepDriveOptions options;
    options.quiet = args.flag(QStringLiteral("quiet")) || args.flag(QStringLiteral("json"));
    const int code = driveSweep(*db.value(), record.value(), io, options);
    return finish(*db.value(), created.value(), code, args, io);
}

} // namespace ty::cli
