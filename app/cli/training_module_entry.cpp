// The entry point of trainyard-training.so, which trainyard-cli resolves by name (training_commands.h).

#include "training_module.h"

extern "C" Q_DECL_EXPORT const ty::cli::TrainingCommands *trainyard_training_commands(std::atomic<bool> *stopFlag)
{
    ty::cli::shareStopFlag(stopFlag);
    return &ty::cli::linkedTrainingCommands();
}
