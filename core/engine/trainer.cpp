#include "trainer.h"

#include "detail/training_run.h"

namespace ty {

TrainResult Trainer::train(const Preset &preset, const TrainOptions &options, TrainObserver &observer)
{
    try {
        detail::TrainingRun run(preset, options, observer);
        return run.run();
    } catch (const std::exception &e) {
        TrainResult result;
        result.outcome = TrainOutcome::Failed;
        result.message = QStringLiteral("training failed: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0));
        return result;
    }
}

} // namespace ty
