// The metadata and data order of a checkpoint (core/data/checkpoint_position.h): what resume reads to know where
// training stands, before any tensor reaches LibTorch. The input is a safetensors file; an accepted position is
// checked for consistency against the run lengths it was read for.
#include "checkpoint_position.h"
#include "fuzz_support.h"

#include <set>

namespace {

void checkAccepted(const ty::CheckpointPosition &p, const std::vector<ty::CheckpointStageLength> &stages, int64_t samples)
{
    if (p.stage < 0 || p.stage >= int64_t(stages.size()))
        __builtin_trap();
    const ty::CheckpointStageLength &stage = stages[size_t(p.stage)];
    if (p.batchInEpoch < 0 || (stage.stepsPerEpoch > 0 && p.batchInEpoch >= stage.stepsPerEpoch))
        __builtin_trap();
    if (p.step != p.stageStartStep + (p.epoch - p.stageStartEpoch) * stage.stepsPerEpoch + p.batchInEpoch)
        __builtin_trap();
    if (p.batchInEpoch > 0 && p.permutation.empty())
        __builtin_trap();
    if (!p.permutation.empty()) {
        if (int64_t(p.permutation.size()) != samples)
            __builtin_trap();
        const std::set<int64_t> distinct(p.permutation.begin(), p.permutation.end());
        if (int64_t(distinct.size()) != samples || *distinct.begin() != 0 || *distinct.rbegin() != samples - 1)
            __builtin_trap();
    }
    if (!(p.elapsedSeconds >= 0) || !(p.plateau.scale > 0 && p.plateau.scale <= 1))
        __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes = ty::fuzz::bytesOf(data, size);
    const QString path = QStringLiteral("fuzz.safetensors");
    ty::Result<ty::TensorFile> file = ty::decodeSafetensors(bytes, path);
    if (!file)
        return 0;
    // The run lengths the seeds were written for, one stage and two, and the data order's own length.
    int64_t samples = 30;
    if (const ty::NamedTensor *order = file.value().find(QStringLiteral("trainyard/permutation")); order && order->shape.size() == 1)
        samples = std::min<int64_t>(order->shape.first(), 1 << 20);
    const std::vector<std::vector<ty::CheckpointStageLength>> runs{{{3, 10}}, {{2, 5}, {4, 7}}, {{1, 0}}};
    for (const auto &stages : runs) {
        (void)ty::readCheckpointStage(file.value(), int64_t(stages.size()), path);
        const ty::Result<ty::CheckpointPosition> position = ty::readCheckpointPosition(file.value(), stages, samples, path);
        if (position)
            checkAccepted(position.value(), stages, samples);
    }
    return 0;
}
