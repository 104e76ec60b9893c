#include "detail/warm_start.h"

#include "detail/checkpoint.h"
#include "detail/tensor_codec.h"
#include "safetensors_file.h"

#include <map>

namespace ty::detail {

namespace {

Error warmStartError(const QString &path, const QString &message, const QString &node = {}, const QString &field = {})
{
    Error e;
    e.file = path;
    e.node = node;
    e.field = field.isEmpty() ? QStringLiteral("training.init_from") : field;
    e.message = QStringLiteral("init_from: %1").arg(message);
    return e;
}

QString sizesText(const torch::Tensor &t) { return QString::fromStdString(c10::str(t.sizes())); }

QString nodeOf(const QString &tensorName) { return tensorName.section(QLatin1Char('.'), 0, 0); }

} // namespace

Result<WarmStartReport> warmStart(const QString &path, torch::nn::Module &model, const QStringList &nodes, bool strict)
{
    Result<TensorFile> read = readSafetensors(path);
    if (!read)
        return warmStartError(path, QStringLiteral("unreadable weights file (truncated or foreign): %1").arg(read.error().message));
    const TensorFile &file = read.value();
    const QString format = file.metadata.value(QStringLiteral("format"));
    if (format != QStringLiteral("trainyard-checkpoint") && format != QLatin1String(kWeightsFormatName))
        return warmStartError(path, QStringLiteral("not a Trainyard checkpoint or weights file"));

    // The model's tensors by node, in the model's order.
    QStringList order;
    std::map<QString, std::vector<std::pair<QString, torch::Tensor>>> byNode;
    for (auto &[name, tensor] : modelTensors(model)) {
        const QString node = nodeOf(name);
        if (!byNode.count(node))
            order << node;
        byNode[node].emplace_back(name, tensor);
    }
    const bool listed = !nodes.isEmpty();
    WarmStartReport report;
    std::vector<std::pair<torch::Tensor, torch::Tensor>> copies;  // destination, source
    try {
        for (const QString &node : listed ? nodes : order) {
            if (!byNode.count(node)) {
                if (strict)
                    return warmStartError(path, QStringLiteral("%1 has no parameters or buffers to copy").arg(node), node);
                report.skipped << QStringLiteral("%1: has no parameters").arg(node);
                continue;
            }
            QString problem;
            std::vector<std::pair<torch::Tensor, torch::Tensor>> nodeCopies;
            for (const auto &[name, tensor] : byNode[node]) {
                const NamedTensor *stored = file.find(name);
                if (!stored) {
                    problem = QStringLiteral("%1 is not in the file").arg(name);
                    break;
                }
                const torch::Tensor source = fromNamedTensor(*stored);
                if (source.sizes() != tensor.sizes() || source.scalar_type() != tensor.scalar_type()) {
                    problem = QStringLiteral("%1 is %2 %3 there, %4 %5 here")
                                  .arg(name, tensorDTypeName(stored->dtype), sizesText(source),
                                       tensorDTypeName(tensorDTypeOf(tensor.scalar_type()).value_or(TensorDType::F32)), sizesText(tensor));
                    break;
                }
                if (!allFinite(source))
                    return warmStartError(path, QStringLiteral("%1 holds NaN or infinite values").arg(name), node);
                nodeCopies.emplace_back(tensor, source);
            }
            if (!problem.isEmpty()) {
                if (listed && strict)
                    return warmStartError(path, problem, node);
                report.skipped << QStringLiteral("%1: %2").arg(node, problem);
                continue;
            }
            report.copiedNodes << node;
            copies.insert(copies.end(), nodeCopies.begin(), nodeCopies.end());
        }
    } catch (const std::exception &e) {
        return warmStartError(path, QStringLiteral("unreadable weights: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
    if (copies.empty())
        return warmStartError(path, QStringLiteral("no node of this network matches the file%1")
                                        .arg(report.skipped.isEmpty() ? QString() : QStringLiteral(" (") + report.skipped.join(QStringLiteral("; ")) + QLatin1Char(')')));
    torch::NoGradGuard noGrad;
    for (auto &[destination, source] : copies)
        destination.copy_(source);
    report.copiedTensors = int(copies.size());
    return report;
}

} // namespace ty::detail
