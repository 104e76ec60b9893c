#include "training_module.h"

#include "shape_inference.h"

namespace ty::cli {

const TrainingCommands &linkedTrainingCommands()
{
    static const TrainingCommands commands{&runCommand, &resumeCommand, &ty::cudaAvailable, &ty::torchVersion, &evaluateCommand, &predictCommand,
                                                &ty::setDatasetPrefetch, &augmentCommand,
                                                &lrfindCommand};
    return commands;
}

} // namespace ty::cli
