#pragma once
// A run's metric rows written, while it trains, into a TensorBoard event file: `training.tensorboard_dir` of the
// preset, or `--tensorboard DIR` of run, resume and sweep (docs/cli.md, "TensorBoard while a run trains"). The file
// goes in DIR/<id>-<name>/, the folder `runs export --tensorboard DIR` writes the run into, and holds the rows the
// run database holds, at the same steps, with the same wall times (the run's start plus each row's time).
//
// The rows are appended on RunWriter's writer thread, right after each commit (RunWriter::setMetricSink): the
// training thread never waits for the file. A folder that cannot be made or written at the start is bad input
// (exit 2, before the run is recorded); a write that fails later (a full disk) stops the file, not the run: a
// `warning` event says so, and the database keeps every row.

#include "error.h"
#include "preset.h"
#include "tensorboard_event_file.h"

#include <QString>

#include <memory>

namespace ty {
class RunWriter;
}

namespace ty::cli {

struct Args;

// The preset field, and the name --tensorboard's errors name.
inline constexpr const char *kTensorBoardField = "training.tensorboard_dir";

// training.tensorboard_dir of `preset`, absolute (a relative one against the preset file's folder); empty when off.
QString tensorBoardDirOf(const Preset &preset);

// --tensorboard's DIR, absolute against the current directory; empty stays empty (off).
QString absoluteTensorBoardDir(const QString &dir);

// `--tensorboard DIR` as `--set training.tensorboard_dir=DIR`, DIR made absolute against the current directory (an
// empty DIR turns a preset's field off), so that the run's recorded preset says where it is logged.
void applyTensorBoardOption(Args *args);

// Checks, creating nothing, that `dir` is or can be made a folder that can be written: else the error, naming
// `presetFile` and the field, for exit code 2 before anything is recorded.
Status checkTensorBoardDir(const QString &dir, const QString &presetFile);

// A new event file for run `runId` in dir/<id>-<name>/; `restartStep` >= 0 for a resumed run (the first step it
// trains: TensorBoard drops what earlier files hold from there on, as the run database did).
Result<std::shared_ptr<TensorBoardEventFile>> createRunEventFile(const QString &dir, qint64 runId, const QString &runName,
                                                                 qint64 restartStep = -1);

// From now on the metric rows `writer` commits also go to `file`, each at the run's recorded start (started_at, else
// created_at, read from `dbPath` as `runs export` reads it) plus its time. Call it after writer.start(), before
// training; an error when the run's record cannot be read.
Status feedTensorBoard(RunWriter &writer, std::shared_ptr<TensorBoardEventFile> file, const QString &dbPath, qint64 runId);

} // namespace ty::cli
