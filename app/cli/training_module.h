#pragma once
// The training side of trainyard-cli (ty_cli_training, linked with LibTorch through ty_engine): the run and
// resume commands, built into trainyard-training.so and loaded by trainyard-cli when asked to train.

#include "training_commands.h"

namespace ty::cli {

int runCommand(const QStringList &arguments, Io &io);
int resumeCommand(const QStringList &arguments, Io &io);
int evaluateCommand(const QStringList &arguments, Io &io);
int predictCommand(const QStringList &arguments, Io &io);
int augmentCommand(const QStringList &arguments, Io &io);
int lrfindCommand(const QStringList &arguments, Io &io);

// The commands of this library, as the module hands them out.
const TrainingCommands &linkedTrainingCommands();

// Makes trainyard-cli's run and resume use the commands linked into this program instead of the module.
inline void linkTrainingCommands() { useTrainingCommands(&linkedTrainingCommands()); }

} // namespace ty::cli
