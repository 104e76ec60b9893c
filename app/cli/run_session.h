#pragma once
// Training a preset into an existing run record: the part `run` and `resume` share.

#include "cli.h"
#include "cli_args.h"
#include "preset.h"
#include "distributed_launch.h"
#include "run_records.h"
#include "tensorboard_event_file.h"
#include "trainer.h"

namespace ty::cli {

// The record of a new run of `preset` (from file `path`) that `command` (run, lrfind) starts with `arguments`: its
// name, preset, versions, device and seed, and the provenance every run has (preset file, command line, host, OS,
// data fingerprint); the command adds its own.
NewRun describeNewRun(const Preset &preset, const TrainStart &start, const QString &path, const QString &name, const QString &command,
                      const QStringList &arguments);

// Prepares training (data, model, optimizer, the checkpoint to resume from); prints the error and returns
// nothing when the input is to blame. Nothing is written anywhere. `runId`: the run resumed (its checkpoint
// must be this run's), -1 for a new run.
// `initFrom`: the first weights of a new run (resolveInitFrom). `launch`: a distributed run's place and group.
std::unique_ptr<PreparedTraining> prepareTraining(const Preset &preset, const QString &resumeCheckpoint, qint64 runId,
                                                  const Args &args, Io &io,
                                                  const std::optional<TrainOptions::WarmStartSource> &initFrom = std::nullopt,
                                                  const DistributedLaunch *launch = nullptr);

// True, after saying so, when a stop was requested (Ctrl-C, SIGTERM) while LibTorch, the data or the
// checkpoint loaded: the command then ends with exit code 130 before anything is recorded or changed.
bool stoppedBeforeTraining(const Args &args, Io &io);

// Starts the run's writer, trains, ends the record with a truthful status, prints the summary (text or
// --json) and returns the exit code. `folder` is RunDatabase::writableRunFolder()'s; `owned` the checkpoints the
// run recorded before (a resume), the only older files it may delete; `tensorBoard` the run's live TensorBoard file
// (live_tensorboard.h), if any.
int trainAndRecord(PreparedTraining &training, const QString &dbPath, qint64 runId, const QString &folder, const Args &args,
                   Io &io, const QList<TrainOptions::OwnedCheckpoint> &owned = {},
                   std::shared_ptr<TensorBoardEventFile> tensorBoard = nullptr);

} // namespace ty::cli
