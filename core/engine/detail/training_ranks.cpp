// The parts of a training run that only a distributed run has: agreeing to start, rank 0's weights everywhere,
// the step's sums over the ranks, and the ending when a process is lost (docs/distributed.md).

#include "detail/training_run.h"

#include <QCryptographicHash>

namespace ty::detail {

bool TrainingRun::joinRanks(bool prepared, Error *failure)
{
    const ProcessGroup::Agreement agreement =
        m_options.group->agree(prepared, QCryptographicHash::hash(m_presetHash.toUtf8(), QCryptographicHash::Sha256));
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
        *failure = Error(QStringLiteral("rank %1 prepared another preset than rank 0 (its file, --set or --overlay differ): "
                                        "every process of a distributed run must train the same one")
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

void TrainingRun::sumAcrossRanks(torch::Tensor *loss, std::vector<torch::Tensor> *metricSums)
{
    std::vector<torch::Tensor> tensors;
    for (const torch::Tensor &p : m_pipeline.model->parameters())
        if (p.requires_grad() && p.grad().defined())
            tensors.push_back(p.grad());
    // The step's small values in one buffer of doubles: the loss, each metric head's statistics, the stop flag.
    const torch::TensorOptions doubles = torch::TensorOptions().dtype(torch::kDouble).device(m_device);
    std::vector<torch::Tensor> small{loss->to(torch::kDouble).reshape({1})};
    for (const torch::Tensor &m : *metricSums)
        small.push_back(m.to(torch::kDouble).reshape({-1}));
    small.push_back(torch::full({1}, observer().stopRequested() ? 1.0 : 0.0, doubles));
    const torch::Tensor packed = torch::cat(small);
    tensors.push_back(packed);
    m_group->sum(tensors);
    *loss = packed[0];
    int64_t offset = 1;
    for (torch::Tensor &m : *metricSums) {
        const int64_t width = m.numel();
        m = packed.narrow(0, offset, width).view(m.sizes());
        offset += width;
    }
    m_stopAgreed = packed[offset].item<double>() > 0;
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
