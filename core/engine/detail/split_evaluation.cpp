#include "detail/split_evaluation.h"

#include "detail/batch_stream.h"

#include "classification_scores.h"
#include "regression_scores.h"

#include <cmath>
#include <map>
#include <optional>

namespace ty::detail {

namespace {

std::vector<float> toHostFloats(const torch::Tensor &t)
{
    const torch::Tensor host = t.to(torch::kCPU, torch::kFloat).contiguous();
    return std::vector<float>(host.data_ptr<float>(), host.data_ptr<float>() + host.numel());
}

} // namespace

EvaluationReport evaluateSplit(CompiledPipeline &pipeline, const DeviceSplit &split, const QString &splitName,
                               const QStringList &classNames, int64_t batchSize, int topK, bool score, Collectives *group)
{
    EvaluationReport report;
    report.split = splitName;
    const int64_t n = split.size();
    const LossHead *scored = nullptr;
    for (const LossHead &head : pipeline.losses)
        if (head.optimized && !scored && score)
            scored = &head;
    if (n == 0)
        return report;

    torch::NoGradGuard noGrad;
    pipeline.model->eval();
    const torch::Device device = split.y.device();
    // This rank's rows; a rank without any evaluates the first at weight 0, so that it takes part in the sums.
    const auto [first, last] = group ? group->shard(n) : std::pair<int64_t, int64_t>{0, n};
    const bool idle = first == last;
    const int64_t end = idle ? 1 : last;
    std::optional<BatchStream> stream;
    if (split.streamed())
        stream.emplace(split, torch::arange(idle ? 0 : first, end, torch::kLong), batchSize, device, /*depth=*/2);
    torch::Tensor lossSum = torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(device));
    std::vector<torch::Tensor> metricSums(pipeline.metrics.size());
    // The outputs kept whole, on the host, by slot: the scored head's and those of the metrics of a whole pass.
    std::map<int, std::vector<torch::Tensor>> outputs;
    if (scored)
        outputs[scored->slot];
    for (const MetricHead &head : pipeline.passMetrics)
        outputs[head.slot];
    for (int64_t begin = idle ? 0 : first; begin < end; begin += batchSize) {
        const int64_t count = std::min(batchSize, end - begin);
        const torch::Tensor x = stream ? stream->next() : split.range(begin, count);
        const torch::Tensor y = split.y.narrow(0, begin, count);
        const std::vector<torch::Tensor> slots = pipeline.model->forwardAll(x);
        for (const LossHead &head : pipeline.losses)
            if (head.optimized)
                lossSum += headLoss(head, slots[head.slot], y).to(torch::kDouble) * (head.weight * double(count));
        for (size_t m = 0; m < pipeline.metrics.size(); ++m)
        {
            const torch::Tensor statistics = metricStatistics(pipeline.metrics[m], slots[pipeline.metrics[m].slot], y).to(torch::kDouble);
            metricSums[m] = metricSums[m].defined() ? metricSums[m] + statistics : statistics;
        }
        if (!idle)
            for (auto &[slot, kept] : outputs)
                kept.push_back(slots[slot].to(torch::kCPU));
    }
    if (group) {
        std::vector<torch::Tensor> sums{lossSum};
        for (torch::Tensor &m : metricSums) {
            if (idle)
                m.zero_();
            sums.push_back(m);
        }
        if (idle)
            lossSum.zero_();
        group->sum(sums);
    }
    report.metrics.insert(QStringLiteral("loss"), lossSum.item<double>() / double(n));
    for (size_t m = 0; m < pipeline.metrics.size(); ++m)
        report.metrics.insert(pipeline.metrics[m].nodeId, metricValue(pipeline.metrics[m], metricSums[m], double(n)));

    // Every rank's rows of each kept slot, in split order (ranks hold contiguous shards in rank order).
    std::map<int, torch::Tensor> whole;
    for (auto &[slot, kept] : outputs) {
        torch::Tensor mine = kept.empty() ? torch::Tensor() : torch::cat(kept, 0);
        if (group) {
            if (!mine.defined())  // an idle rank: no rows, the trailing shape of the first sample's
                mine = pipeline.model->forwardAll(split.range(0, 1).to(device))[slot].to(torch::kCPU).narrow(0, 0, 0);
            mine = group->gatherRows(mine);
        }
        whole[slot] = mine.reshape({n, -1});
    }
    const torch::Tensor targets = split.y.to(torch::kCPU);
    for (const MetricHead &head : pipeline.passMetrics) {
        QString reason;
        const double value = head.metric.overPass(whole[head.slot], targets, &reason);
        if (std::isnan(value))
            report.undefinedMetrics.insert(head.nodeId, reason);
        else
            report.metrics.insert(head.nodeId, value);
    }
    if (!scored)
        return report;  // the run's metrics, but no output to score

    const torch::Tensor all = whole[scored->slot];
    if (pipeline.plan.datasetShape.classification) {
        const torch::Tensor labels = split.y.to(torch::kCPU, torch::kLong).contiguous();
        const std::vector<int64_t> hostLabels(labels.data_ptr<int64_t>(), labels.data_ptr<int64_t>() + n);
        scoreClassification(toHostFloats(all), hostLabels, all.size(1), classNames, topK, &report);
    } else {
        scoreRegression(toHostFloats(all), toHostFloats(split.y.reshape({n, -1})), all.size(1), &report);
    }
    return report;
}

} // namespace ty::detail
