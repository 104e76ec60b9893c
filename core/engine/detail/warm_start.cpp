#include "detail/warm_start.h"

#include "detail/tensor_codec.h"
#include "pickled_file.h"
#include "safetensors_file.h"

namespace ty::detail {

namespace {

Error warmStartError(const QString &path, const QString &message, const QString &node = {})
{
    Error e;
    e.file = path;
    e.node = node;
    e.field = QStringLiteral("training.init_from");
    e.message = QStringLiteral("init_from: %1").arg(message);
    return e;
}

ModelTensor describe(const QString &layer, const std::string &key, const torch::Tensor &tensor)
{
    ModelTensor t;
    t.layer = layer;
    t.leaf = QString::fromStdString(key);
    t.name = tensorNameOf(layer.toStdString()) + QLatin1Char('.') + t.leaf;
    t.shape = SampleShape(tensor.sizes().begin(), tensor.sizes().end());
    t.dtype = tensorDTypeOf(tensor.scalar_type()).value_or(TensorDType::F32);
    return t;
}

} // namespace

QList<ModelTensor> warmStartTensors(torch::nn::Module &model, bool foreign, std::vector<torch::Tensor> *tensors)
{
    QList<ModelTensor> out;
    for (const auto &child : model.named_children()) {
        const QString layer = QString::fromStdString(child.key());
        for (const auto &p : child.value()->named_parameters()) {
            out.append(describe(layer, p.key(), p.value()));
            tensors->push_back(p.value());
        }
        for (const auto &b : child.value()->named_buffers()) {
            const QString leaf = QString::fromStdString(b.key()).section(QLatin1Char('.'), -1);
            if (foreign && !isRunningStatistic(leaf))
                continue;
            out.append(describe(layer, b.key(), b.value()));
            tensors->push_back(b.value());
        }
    }
    return out;
}

Result<WarmStartReport> warmStart(torch::nn::Module &model, const WeightImportRequest &request)
{
    const QString &path = request.file;
    Result<TensorFile> read = readSafetensors(path);
    if (!read)
        return read.error().message.startsWith(QLatin1String(kPickleRefusal))
                   ? warmStartError(path, read.error().message)
                   : warmStartError(path, QStringLiteral("unreadable weights file (truncated or foreign): %1").arg(read.error().message));
    const TensorFile &file = read.value();
    std::vector<torch::Tensor> destinations;
    const QList<ModelTensor> tensors = warmStartTensors(model, request.map.given(), &destinations);
    const Result<WeightImportPlan> planned = planWeightImport(tensors, file, request);
    if (!planned)
        return planned.error();
    const WeightImportPlan &plan = planned.value();
    std::vector<std::pair<torch::Tensor, torch::Tensor>> copies;  // destination, source
    try {
        for (const auto &[m, f] : plan.copies) {
            const NamedTensor &stored = file.tensors[f];
            if (!tensorIsFinite(stored))
                return warmStartError(path, QStringLiteral("%1 holds NaN or infinite values").arg(stored.name),
                                      tensors[m].layer);
            const torch::Tensor &destination = destinations[size_t(m)];
            copies.emplace_back(destination, fromNamedTensor(stored).to(destination.scalar_type()));
        }
    } catch (const std::exception &e) {
        return warmStartError(path, QStringLiteral("unreadable weights: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
    torch::NoGradGuard noGrad;
    for (auto &[destination, source] : copies)
        destination.copy_(source);
    WarmStartReport report;
    report.copiedNodes = plan.copiedNodes;
    report.copiedTensors = int(copies.size());
    report.skipped = plan.notCopied;
    report.import = plan.report;
    return report;
}

} // namespace ty::detail
