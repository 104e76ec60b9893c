// The entry point of trainyard-training.so, which trainyard-cli resolves by name (training_commands.h).

#include "host_memory.h"
#include "training_module.h"

extern "C" Q_DECL_EXPORT const ty::cli::TrainingCommands *trainyard_training_commands(std::atomic<bool> *stopFlag)
{
    ty::cli::shareStopFlag(stopFlag);
    ty::installLargeBlockCache();  // LibTorch's large blocks reused, not faulted in again (host_memory.h)
    return &ty::cli::linkedTrainingCommands();
}
