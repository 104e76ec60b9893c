// The parts of a training run that only a distributed run has: agreeing to start, rank 0's weights everywhere,
// the step's sums over the ranks, and the ending when a process is lost (docs/distributed.md).

#include "detail/training_run.h"

#include "sha256.h"

namespace ty::detail {

bool TrainingRun::joinRanks(bool prepared, Error *failure)
{
    // What every rank must share: the preset, the position it starts from (a resumed checkpoint), the kind of
    // device and whether it trains in mixed precision.
    const QString shared = QStringLiteral("%1|step %2|epoch %3|batch %4|stage %5|%6|%7")
                               .arg(m_presetHash).arg(m_position.step).arg(m_position.epoch).arg(m_position.batchInEpoch)
                               .arg(m_position.stage).arg(m_device.is_cuda() ? QStringLiteral("cuda") : QStringLiteral("cpu"))
                               .arg(m_precision.enabled() ? QStringLiteral("mixed") : QStringLiteral("float32"));
    const ProcessGroup::Agreement agreement =
        m_options.group->agree(prepared, Sha256::hash(shared.toUtf8()));
    QStringList failed, different;
    for (int r : agreement.failed)
        failed << QString::number(r);
    for (int r : agreement.different)
        different << QString::number(r);
    if (!prepared)
        return false;  // this rank's own error says why
    if (!failed.isEmpty()) {
        *failure = Error(QStringLiteral("rank %1 of the distributed run could not prepare (its own output says why): nothing was trained")
                             .arg(failed.join(QStringLiteral(", "))));
        return false;
    }
    if (!different.isEmpty()) {
        *failure = Error(QStringLiteral("rank %1 prepared another run than rank 0: another preset (its file, --set or --overlay), "
                                        "another checkpoint to resume from, or another kind of device. Every process of a distributed "
                                        "run must train the same one")
                             .arg(different.join(QStringLiteral(", "))));
        return false;
    }
    // Seeded alike, the ranks built the same weights; a warm start or a checkpoint read elsewhere might not be.
    std::vector<torch::Tensor> state;
    {
        torch::NoGradGuard noGrad;
        for (const torch::Tensor &p : m_pipeline.model->parameters())
            state.push_back(p);
        for (const torch::Tensor &b : m_pipeline.model->buffers())
            state.push_back(b);
        m_group->broadcast(state);
    }
    return true;
}

GradientReducer &TrainingRun::reducer()
{
    if (!m_reducer) {
        // Every parameter that trains, in the same order on every rank.
        std::vector<torch::Tensor> trained;
        for (const torch::Tensor &p : m_pipeline.model->parameters())
            if (p.requires_grad())
                trained.push_back(p);
        m_reducer = std::make_unique<GradientReducer>(*m_group, std::move(trained));
    }
    return *m_reducer;
}

void TrainingRun::sumAcrossRanks(torch::Tensor *loss, std::vector<torch::Tensor> *metricSums, const QString &stepFailure)
{
    // The gradients first: most of them were sent during the last backward pass, and every rank sends them all,
    // even one whose step failed, so that the exchanges stay in step.
    const std::string gradientFailure = reducer().finish();
    const QString failure = !stepFailure.isEmpty() ? stepFailure
                                                   : QString::fromStdString(gradientFailure).section(QLatin1Char('\n'), 0, 0);
    // The flags: one per rank that failed, and the stop requests.
    const int size = m_group->size();
    torch::Tensor flags = torch::zeros({size + 1}, torch::kDouble);
    flags[m_group->rank()] = failure.isEmpty() ? 0.0 : 1.0;
    flags[size] = observer().stopRequested() ? 1.0 : 0.0;
    m_group->sum({flags});
    QStringList failed;
    for (int r = 0; r < size; ++r)
        if (flags[r].item<double>() > 0)
            failed << QString::number(r);
    if (!failed.isEmpty())
        throw std::runtime_error(
            (failure.isEmpty() ? QStringLiteral("rank %1 failed at step %2 (its output says why)").arg(failed.join(QStringLiteral(", "))).arg(m_position.step + 1)
                               : QStringLiteral("rank %1 at step %2: %3").arg(m_group->rank()).arg(m_position.step + 1).arg(failure))
                .toStdString());
    m_stopAgreed = flags[size].item<double>() > 0;
    // The step's small values in one buffer of doubles: the loss, then each metric head's statistics.
    std::vector<torch::Tensor> small{loss->to(torch::kDouble).reshape({1})};
    for (const torch::Tensor &m : *metricSums)
        small.push_back(m.to(torch::kDouble).reshape({-1}));
    const torch::Tensor packed = torch::cat(small);
    m_group->sum({packed});
    *loss = packed[0];
    int64_t offset = 1;
    for (torch::Tensor &m : *metricSums) {
        const int64_t width = m.numel();
        m = packed.narrow(0, offset, width).view(m.sizes());
        offset += width;
    }
}

void TrainingRun::shareRankZeroBuffers()
{
    if (!m_group)
        return;
    std::vector<torch::Tensor> buffers;
    for (const torch::Tensor &b : m_pipeline.model->buffers())
        buffers.push_back(b);
    if (!buffers.empty())
        m_group->broadcast(buffers);
}

TrainResult TrainingRun::interrupted(const QString &message)
{
    TrainResult result = fail(QStringLiteral("%1; resume from the last checkpoint with the same number of processes").arg(message));
    result.outcome = TrainOutcome::Interrupted;
    result.finalCheckpoint = m_lastCheckpoint;
    return result;
}

} // namespace ty::detail
