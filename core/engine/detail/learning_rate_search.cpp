// TrainingRun: the learning-rate range test (learning_rate_finder.h). The steps are training's own (the batch
// order, gradient accumulation, clipping, mixed precision and the optimizer's step), with the rate of each step set
// on the optimizer instead of the schedule's, and every step's loss read back at once.

#include "detail/training_run.h"

#include "detail/batch_stream.h"
#include "detail/optimization.h"

#include <optional>

namespace ty::detail {

void TrainingRun::findLearningRate(const LrFindOptions &options, const LrFindProgress &progress, LrFindResult *result)
{
    result->curve = RangeTestCurve(options.beta, options.divergeFactor);
    result->optimizerNode = m_pipeline.plan.optimizerNode;
    result->optimizerType = m_pipeline.plan.optimizerType;
    result->scheduleNode = m_pipeline.plan.scheduleNode;
    result->batchSize = m_settings.batchSize;
    m_timing.emplace(m_device, m_group != nullptr);
    m_pipeline.model->train();
    std::optional<BatchStream> stream;
    for (int i = 0; i < options.steps; ++i) {
        if (m_position.batchInEpoch >= m_stepsPerEpoch) {
            // A test longer than an epoch goes on in the next epoch's order.
            m_position.epoch += 1;
            m_position.batchInEpoch = 0;
            m_position.permutation = torch::Tensor();
            stream.reset();
        }
        ensurePermutation();
        if (m_train.streamed() && !stream)
            stream.emplace(m_train, m_position.permutation.slice(0, m_position.batchInEpoch * m_settings.batchSize),
                           m_settings.batchSize, m_device);
        const double lr = rangeTestRate(options.minLr, options.maxLr, options.steps, i);
        setLearningRate(*m_optimizer, lr);
        m_timing->beginStep(false, 0);
        const StepBatch step = stepBatch(stream ? &*stream : nullptr);
        const StepSums sums = forwardBackward(step);
        optimizerStep();
        ++m_position.step;
        ++m_position.batchInEpoch;
        const bool goOn = result->curve.add(lr, sums.loss.item<double>());
        if (!progress(i, result->curve.points().back())) {
            result->stoppedByRequest = true;
            result->message = QStringLiteral("stopped at step %1").arg(i + 1);
            return;
        }
        if (!goOn)
            return;
    }
}

} // namespace ty::detail
