#pragma once
// run, resume, evaluate, predict, augment and lrfind need LibTorch; no other command does. They live in a module of their own,
// trainyard-training.so (next to trainyard-cli in the build tree, in lib/trainyard/ of an installation), which
// trainyard-cli loads only when asked to train: validate, blocks and runs start without loading LibTorch.

#include "cli.h"
#include "dataset_prefetch.h"

#include <atomic>

namespace ty::cli {

using CommandFunction = int (*)(const QStringList &arguments, Io &io);

struct TrainingCommands {
    CommandFunction run = nullptr;
    CommandFunction resume = nullptr;
    bool (*cudaAvailable)() = nullptr;  // whether this LibTorch can use a CUDA device
    QString (*torchVersion)() = nullptr;  // "1.13.1"
    CommandFunction evaluate = nullptr;
    CommandFunction predict = nullptr;
    // Gives the module's data set loader the program's data set loaded ahead (run_data_prefetch.h).
    void (*setDatasetPrefetch)(const DatasetPrefetch &prefetch) = nullptr;
    // The transform blocks' variants of a sample (cmd_augment.cpp; the inspector's augmentation preview).
    CommandFunction augment = nullptr;
    CommandFunction lrfind = nullptr;  // the learning-rate range test (cmd_lrfind.cpp)
};

// The commands given to useTrainingCommands(), else those of the module, loaded on first use. nullptr, with
// the reason in *error, when the module cannot be loaded.
const TrainingCommands *trainingCommands(QString *error = nullptr);

// For programs that link ty_cli_training (tests, benchmarks): train in-process instead of loading the module.
void useTrainingCommands(const TrainingCommands *commands);

// The module's entry point, resolved by this name: shares the executable's stop flag, returns the commands.
using TrainingModuleEntry = const TrainingCommands *(*)(std::atomic<bool> *stopFlag);
inline constexpr char kTrainingModuleEntry[] = "trainyard_training_commands";
inline constexpr char kTrainingModuleFile[] = "trainyard-training.so";

} // namespace ty::cli
