#include "sweep_trials.h"

#include "commands.h"
#include "preset_format.h"
#include "preset_inspection.h"
#include "preset_overrides.h"
#include "run_database.h"

#include <QJsonArray>

namespace ty::cli {

QList<SweepTrial> recordedTrials(const SweepRecord &sweep)
{
    QList<SweepTrial> trials;
    for (const QJsonValue &trial : sweep.trials)
        trials.append(sweepTrialFromJson(trial.toObject()));
    return trials;
}

Result<Preset> sweepBasePreset(const SweepRecord &sweep)
{
    return presetFromJson(sweep.preset, sweep.presetFile);
}

Result<Preset> sweepTrialPreset(const SweepRecord &sweep, int index)
{
    const QList<SweepTrial> trials = recordedTrials(sweep);
    if (index < 0 || index >= trials.size())
        return Error(QStringLiteral("sweep %1 has no trial %2 (it has %3)").arg(sweep.id).arg(index).arg(trials.size()));
    Result<Preset> preset = sweepBasePreset(sweep);
    if (!preset)
        return preset.error();
    Preset trial = preset.value();
    if (Status applied = applyOverrides(&trial, trials.at(index).sets); !applied)
        return applied.error();
    return trial;
}

Status checkTrialPresets(const Preset &base, const QList<SweepTrial> &trials, const QString &file)
{
    for (const SweepTrial &trial : trials) {
        Preset preset = base;
        const QString which = QStringLiteral("trial %1 (%2): ").arg(trial.index).arg(sweepTrialName(trial));
        if (Status applied = applyOverrides(&preset, trial.sets); !applied) {
            Error e = applied.error();
            e.file = file;
            e.message = which + e.message;
            return e;
        }
        const ShapeReport report = inspectPresetShapes(preset);
        for (const Issue &issue : report.issues)
            if (issue.severity == Severity::Error) {
                Error e = Error::atNode(issue.node, which + issue.message, issue.port.isEmpty() ? issue.param : issue.port);
                e.file = file;
                return e;
            }
    }
    return Status::success();
}

bool loadSweepTrialPreset(const Args &args, Preset *preset, SweepRecord *sweep, int *trial, Io &io)
{
    bool idOk = false, trialOk = false;
    const qint64 id = args.option(QStringLiteral("sweep")).toLongLong(&idOk);
    *trial = args.option(QStringLiteral("trial")).toInt(&trialOk);
    if (!idOk || !trialOk) {
        reportError(Error(QStringLiteral("--sweep ID needs --trial N, both numbers")), args, io);
        return false;
    }
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(databasePath(args));
    if (!db) {
        reportError(db.error(), args, io);
        return false;
    }
    Result<SweepRecord> record = db.value()->sweep(id);
    Result<Preset> built = record ? sweepTrialPreset(record.value(), *trial) : Result<Preset>(record.error());
    if (!built) {
        reportError(built.error(), args, io);
        return false;
    }
    *sweep = record.value();
    *preset = built.value();
    if (Status applied = applyOverrides(preset, args.sets); !applied) {
        reportError(applied.error(), args, io);
        return false;
    }
    return true;
}

} // namespace ty::cli
