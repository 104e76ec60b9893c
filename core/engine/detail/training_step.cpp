// TrainingRun: one training step, in the order trainEpoch() runs them: the epoch's data order, the scheduled
// learning rate, this rank's samples of the batch, the forward and backward passes of its parts (gradient
// accumulation, distributed shards, synchronised batch norm), the sums over the ranks, and the optimizer's step.

#include "detail/training_run.h"

#include "detail/batch_stream.h"
#include "detail/fused_adam.h"
#include "detail/optimization.h"

#include <algorithm>

namespace ty::detail {

void TrainingRun::ensurePermutation()
{
    if (m_position.permutation.defined())
        return;
    // One generator per epoch, seeded from the run's seed: the data order is a pure function of both.
    auto generator = at::make_generator<at::CPUGeneratorImpl>(uint64_t(m_settings.seed) * 1000003ULL + uint64_t(m_position.epoch));
    m_position.permutation = torch::randperm(m_train.size(), generator, torch::TensorOptions().dtype(torch::kLong)).to(m_device);
}

void TrainingRun::applyScheduledRate()
{
    // Each stage runs its own schedule over its own steps.
    if (m_pipeline.schedule)
        setLearningRate(*m_optimizer, m_position.plateau.scale * m_pipeline.schedule(m_pipeline.plan.scheduleParams, m_baseLr,
                                                                                     m_position.step - m_position.stageStartStep,
                                                                                     m_stepsPerEpoch, m_stageSteps));
}

TrainingRun::StepBatch TrainingRun::stepBatch(BatchStream *stream)
{
    const int64_t batch = m_settings.batchSize;
    const int64_t begin = m_position.batchInEpoch * batch;
    const torch::Tensor batchIndex = m_position.permutation.slice(0, begin, std::min(m_train.size(), begin + batch));
    StepBatch step;
    step.count = batchIndex.size(0);
    step.index = batchIndex;
    // Distributed: this rank's contiguous shard of the batch, its loss weighted by its share, so that the
    // gradients summed over the ranks are the whole batch's. A rank left without a sample (a last batch
    // smaller than the group) runs the first one at weight 0 and still takes part in the step's sums.
    if (m_group) {
        const auto [first, last] = m_group->shard(step.count);
        step.index = first < last ? batchIndex.slice(0, first, last) : batchIndex.slice(0, 0, 1);
        step.share = first < last ? 1.0 : 0.0;
    }
    if (stream) {
        step.streamed = stream->next();
        ++m_streamedBatches;
    }
    return step;
}

TrainingRun::StepSums TrainingRun::forwardBackward(const StepBatch &step)
{
    m_pipeline.model->zero_grad(/*set_to_none=*/true);
    // The batch in accumulate_steps parts, one after another: each part's loss weighted by its share of the
    // batch, so the summed gradients (and the logged loss and metrics) are the whole batch's. With synchronised
    // batch norm every rank runs as many parts (each part's statistics are summed over the ranks): at most
    // accumulate_steps, at most the smallest shard's samples, the sizes differing by at most one.
    const int64_t local = step.index.size(0);
    const bool syncedNorm = m_group && m_settings.syncBatchNorm;
    const int64_t part = (local + m_settings.accumulateSteps - 1) / m_settings.accumulateSteps;
    const int64_t parts = syncedNorm ? std::max<int64_t>(1, std::min<int64_t>(m_settings.accumulateSteps, step.count / m_group->size()))
                                     : (local + part - 1) / part;
    // Where part p of n samples starts.
    auto cut = [&](int64_t p, int64_t n) { return syncedNorm ? p * n / parts : std::min(n, p * part); };
    StepSums sums;
    sums.metrics.resize(m_pipeline.metrics.size());
    // An idle rank's stand-in sample runs in evaluation mode (batch norm cannot take one sample in training);
    // with synchronised batch norm it trains, adding nothing to the statistics, so it takes part in their sums.
    if (step.share == 0.0) {
        if (syncedNorm)
            m_batchNormSync->idle = true;
        else
            m_pipeline.model->eval();
    }
    // In a distributed run an error of this rank's own (out of memory) is told to the others in the step's
    // exchange, so that every rank ends failed at the same step rather than waiting for this one.
    QString localFailure;
    try {
        if (m_group)
            reducer();  // made before the forward pass of its stage's first step, not at the memory's peak
        for (int64_t p = 0; p < parts; ++p) {
            const int64_t from = cut(p, local), to = cut(p + 1, local);
            const torch::Tensor partIndex = to - from == local ? step.index : step.index.slice(0, from, to);
            if (syncedNorm) {
                // The part's samples over every rank, each rank's shard cut alike (none from an idle rank).
                int64_t samples = 0;
                for (int r = 0; r < m_group->size(); ++r) {
                    const auto [first, last] = m_group->shardOf(step.count, r);
                    samples += cut(p + 1, last - first) - cut(p, last - first);
                }
                m_batchNormSync->samples = samples;
            }
            const torch::Tensor x = step.streamed.defined()
                                        ? (to - from == local ? step.streamed : step.streamed.narrow(0, from, partIndex.size(0)))
                                        : m_train.rows(partIndex);
            const torch::Tensor y = m_train.y.index_select(0, partIndex);
            m_timing->lap(StepTiming::Data);
            // The last part's gradients are complete as its backward pass makes them: sent to the other ranks
            // meanwhile. Not with synchronised batch norm, whose own exchanges in the backward pass might then
            // come in another order on another rank.
            trainPart(x, y, step, partIndex.size(0), m_group && !syncedNorm && p + 1 == parts, &sums);
        }
    } catch (const PeerLost &) {
        throw;  // synchronised batch norm's sums: another rank is gone, nothing to tell it
    } catch (const std::exception &e) {
        if (!m_group)
            throw;
        localFailure = QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0);
    }
    if (step.share == 0.0) {
        if (syncedNorm)
            m_batchNormSync->idle = false;
        else
            m_pipeline.model->train();
    }
    if (m_group) {
        sumAcrossRanks(&sums.loss, &sums.metrics, localFailure);
        m_timing->lap(StepTiming::AllReduce);
    }
    return sums;
}

void TrainingRun::trainPart(const torch::Tensor &x, const torch::Tensor &y, const StepBatch &step, int64_t samples,
                            bool armReducer, StepSums *sums)
{
    std::vector<torch::Tensor> slots;
    {
        const MixedPrecision::Autocast autocast(m_precision.enabled());
        slots = m_pipeline.model->forwardAll(x);
    }
    // Losses and metrics in float32 (under mixed precision the network's outputs may be float16, in which
    // a regression target rounds to three digits and a sum of squares overflows).
    if (m_precision.enabled())
        for (torch::Tensor &slot : slots)
            if (slot.defined() && slot.scalar_type() == torch::kHalf)
                slot = slot.to(torch::kFloat);
    torch::Tensor loss;
    for (const LossHead &head : m_pipeline.losses) {
        if (!head.optimized)
            continue;
        torch::Tensor term = headLoss(head, slots[head.slot], y);
        if (head.weight != 1.0)
            term = term * head.weight;
        loss = loss.defined() ? loss + term : term;
    }
    if (samples != step.count || step.share != 1.0)
        loss = loss * (step.share * double(samples) / double(step.count));
    m_timing->lap(StepTiming::Forward);
    if (armReducer)
        reducer().arm();
    m_precision.scaled(loss).backward();
    m_timing->lap(StepTiming::Backward);
    sums->loss = sums->loss.defined() ? sums->loss + loss.detach() : loss.detach();
    torch::NoGradGuard noGrad;
    for (size_t m = 0; m < m_pipeline.metrics.size(); ++m) {
        const MetricHead &metric = m_pipeline.metrics[m];
        torch::Tensor sum = metricStatistics(metric, slots[metric.slot].detach(), y);
        if (step.share != 1.0)
            sum = sum * step.share;
        sums->metrics[m] = sums->metrics[m].defined() ? sums->metrics[m] + sum : sum;
    }
    m_timing->lap(StepTiming::Forward);
}

void TrainingRun::optimizerStep()
{
    // Under mixed precision a step whose gradients overflowed is skipped (and the loss scale backs off).
    const bool finite = m_precision.unscale(m_pipeline.model->parameters());
    if (finite && (m_settings.clipGradValue > 0 || m_settings.clipGradNorm > 0))
        clipGradients(m_pipeline.model->parameters(), m_settings.clipGradValue, m_settings.clipGradNorm);
    // Adam and AdamW on the CPU in one pass per parameter, bitwise LibTorch's step (detail/fused_adam.h).
    if (finite && !fusedAdamStep(*m_optimizer))
        m_optimizer->step();
    m_precision.update();
    m_timing->lap(StepTiming::Optimizer);
}

} // namespace ty::detail
