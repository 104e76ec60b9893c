#pragma once
// The two structured keys of a preset's `training` section:
//   stages     an ordered list of training stages; each inherits the settings of the stage before it and may
//              override parameters (`set`, in --set key syntax), freeze or unfreeze nodes and reset the
//              optimizer. A preset without stages trains one implicit stage of training.epochs.
//   init_from  where the run's first weights come from: a run's checkpoint or a weights file, all matching
//              nodes or a chosen list.
// Parsing and checking only (no shapes, no LibTorch): every problem is an Issue pinned to the stage and key,
// e.g. `training.stages[1].set.opt.lr`. The parse (parseStages, parseInitFrom) reads the section alone, once per
// version of it (preset_sections.h); planStages and initFrom apply that parse to the preset's graph and files.

#include "issue.h"
#include "preset.h"

#include <QJsonValue>
#include <QStringList>

#include <optional>

namespace ty {

// One entry of `stages` as written.
struct TrainingStage {
    QString name;
    int epochs = 1;                       // at least 1
    QJsonValue set;                       // {"opt.lr": 1e-4, "training.batch_size": 256}; undefined when not given
    QJsonValue freeze, unfreeze;          // lists of node ids; undefined when not given
    std::optional<bool> resetOptimizer;   // unset: reset when the trainable set changes
    bool isObject = true;                 // false: not a stage at all (its one problem is in `issues`)
    Issues issues;                        // what the entry itself gets wrong: its keys, name and epochs
    Issues resetIssues;                   // and its reset_optimizer (reported after those of set, freeze, unfreeze)
};

// The `stages` list as written.
struct ParsedStages {
    bool given = false;   // the section has `stages`
    bool usable = false;  // a list of 1 to 1000 entries; else the run trains one implicit stage
    Issues issues;        // of the list as a whole
    QList<TrainingStage> stages;
};
ParsedStages parseStages(const QJsonObject &training);

// One stage as the trainer runs it.
struct StagePlan {
    int index = 0;
    QString name;
    int epochs = 0;
    Preset preset;            // the preset with this stage's overrides and those of every earlier stage applied
    QStringList frozen;       // node ids frozen in this stage, in graph order
    bool resetOptimizer = false;  // the optimizer starts afresh when this stage begins (always for stage 0)
    QStringList overrides;    // this stage's own `set` entries as KEY=VALUE, for reports
    bool implicit = false;    // the one stage of a preset without `stages` (not reported as a stage)
};

// How the tensors of a weights file are named (init_from's "map"): not given for Trainyard's own files; a named
// convention ("sequential", "auto", ...: core/shapes/weight_name_maps.h has the table and checks the name); or an
// explicit map from the network's tensor names to the file's.
struct WeightMap {
    QString convention;                       // a convention's name, as written; empty otherwise
    QList<QPair<QString, QString>> pairs;     // explicit: {"fc1.weight", "0.weight"}, ...; empty otherwise
    bool given() const { return !convention.isEmpty() || !pairs.isEmpty(); }
    bool isExplicit() const { return !pairs.isEmpty(); }
    QString describe() const;                 // the convention's name, "explicit" or "none"
    QJsonValue toJson() const;                // as written in a preset; undefined when not given
};

struct InitFrom {
    qint64 run = -1;                          // a run of the same database, or
    QString checkpoint = QStringLiteral("last");  // "last", "best" or a step, of that run
    QString file;                             // a weights or checkpoint file (relative to the preset)
    QStringList nodes;                        // empty: every node whose id and parameter shapes match
    bool strict = true;                       // a requested node that does not match is an error
    WeightMap map;                            // how the file names its tensors (another tool's file)
    bool fromRun() const { return run >= 0; }
};

// `init_from` as written.
struct ParsedInitFrom {
    bool given = false;   // the section has `init_from`
    bool usable = false;  // an object naming a run or a file
    InitFrom init;        // its file as written; its nodes still to be checked against the graph
    bool hasFile = false;
    QJsonValue nodes;     // undefined when not given
    Issues issues;        // up to its file: keys, the source, run and checkpoint
    Issues strictIssues;  // its `strict` and `map`, reported after the file's and the nodes' problems
};
ParsedInitFrom parseInitFrom(const QJsonObject &training);

// Training keys a stage may not change: they hold for the whole run.
bool isRunWideTrainingKey(const QString &key);

// Every stage of `preset` with its effective preset, frozen nodes and optimizer reset: one implicit stage
// (training.epochs, nothing frozen) without `stages`. Problems go to `issues` (when not null); a stage with
// an error keeps the settings of the stage before it.
QList<StagePlan> planStages(const Preset &preset, Issues *issues = nullptr);

// The parsed init_from, if any: nothing without one, with errors, or with neither `run` nor `file` (a preset that
// names the nodes to carry over and leaves the source to --init-from; a warning). Problems go to `issues` (when
// not null; that last case is an Info). A relative file is resolved against the preset's folder.
std::optional<InitFrom> initFrom(const Preset &preset, Issues *issues = nullptr);

// Total epochs over all stages.
int totalEpochs(const QList<StagePlan> &stages);

} // namespace ty
