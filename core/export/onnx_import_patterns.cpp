// Patterns of several ONNX nodes that are one Trainyard block, joined before the rules run: MatMul by a constant
// followed by Add of a constant is a linear layer with a bias (exporters write nn.Linear on inputs of more than two
// dimensions so), and Div by sqrt(2), Erf, Add 1, Mul by the input, Mul by 0.5 is the exact GELU (what torch 1.13
// writes for nn.GELU; Gelu is an op from opset 20 on).

#include "onnx_import_rules.h"

#include <QSet>

#include <cmath>

namespace ty {

namespace {

class NodeIndex {
public:
    NodeIndex(const QList<OnnxNodeView> &nodes, const QSet<QString> &constants, const QStringList &graphOutputs)
        : m_nodes(nodes), m_constants(constants)
    {
        for (int i = 0; i < nodes.size(); ++i) {
            for (const QString &output : nodes[i].outputs)
                m_producer.insert(output, i);
            for (const QString &input : nodes[i].inputs)
                m_consumers[input] << i;
        }
        for (const QString &output : graphOutputs)
            m_consumers[output] << -1;
    }

    // The one node reading `value`, of type `op`; -1 when several read it (or the graph returns it) or another op does.
    int soleConsumer(const QString &value, const char *op) const
    {
        const QList<int> readers = m_consumers.value(value);
        if (readers.size() != 1 || readers[0] < 0 || m_nodes[readers[0]].opType != QLatin1String(op))
            return -1;
        return readers[0];
    }
    int producer(const QString &value) const { return m_producer.value(value, -1); }
    bool isConstant(const QString &value) const { return m_constants.contains(value); }

    // The input of `node` that is not `value`; empty when both are it or the node has not two inputs.
    QString otherInput(int node, const QString &value) const
    {
        const QStringList &in = m_nodes[node].inputs;
        if (in.size() != 2)
            return {};
        return in[0] == value ? in[1] : (in[1] == value ? in[0] : QString());
    }

private:
    const QList<OnnxNodeView> &m_nodes;
    const QSet<QString> &m_constants;
    QHash<QString, int> m_producer;
    QHash<QString, QList<int>> m_consumers;
};

// The scalar value of a constant, if it is one.
std::optional<double> scalarOf(const QHash<QString, OnnxTensor> &known, const QString &value)
{
    const auto it = known.constFind(value);
    if (it == known.constEnd() || it->elementCount() != 1)
        return std::nullopt;
    if (it->type == OnnxTensor::Type::Float)
        return double(it->floats[0]);
    if (it->type == OnnxTensor::Type::Int64)
        return double(it->ints[0]);
    return std::nullopt;
}

bool near(std::optional<double> v, double target) { return v && std::abs(*v - target) < 1e-4 * std::max(1.0, std::abs(target)); }

QString scopeOf(const QString &nodeName)
{
    const int slash = nodeName.lastIndexOf(QLatin1Char('/'));
    return slash < 0 ? QString() : nodeName.left(slash + 1);
}

} // namespace

QList<OnnxNodeView> joinImportPatterns(const QList<OnnxNodeView> &nodes, const QHash<QString, OnnxTensor> &initializers, const QStringList &graphOutputs)
{
    // Constants: the initializers, Constant nodes, and Identity of either.
    QHash<QString, OnnxTensor> known = initializers;
    QSet<QString> constants(initializers.keyBegin(), initializers.keyEnd());
    for (const OnnxNodeView &node : nodes) {
        if (node.opType == QStringLiteral("Constant") && !node.outputs.isEmpty()) {
            constants.insert(node.outputs[0]);
            if (const OnnxAttributeValue *value = node.attribute(QStringLiteral("value")); value && value->kind == OnnxAttributeValue::Kind::Tensor)
                known.insert(node.outputs[0], value->tensor);
        } else if (node.opType == QStringLiteral("Identity") && !node.inputs.isEmpty() && constants.contains(node.inputs[0])) {
            constants.insert(node.outputs.value(0));
            if (known.contains(node.inputs[0]))
                known.insert(node.outputs.value(0), known.value(node.inputs[0]));
        }
    }
    const NodeIndex index(nodes, constants, graphOutputs);
    QList<OnnxNodeView> joined = nodes;
    QSet<int> removed;
    for (int i = 0; i < nodes.size(); ++i) {
        const OnnxNodeView &node = nodes[i];
        if (node.opType == QStringLiteral("MatMul") && node.inputs.size() == 2 && index.isConstant(node.inputs[1]) && node.outputs.size() == 1) {
            const int add = index.soleConsumer(node.outputs[0], "Add");
            if (add < 0)
                continue;
            const QString bias = index.otherInput(add, node.outputs[0]);
            if (bias.isEmpty() || !index.isConstant(bias))
                continue;
            joined[i].inputs << bias;
            joined[i].outputs = nodes[add].outputs;
            removed.insert(add);
        } else if (node.opType == QStringLiteral("Div") && node.inputs.size() == 2 && near(scalarOf(known, node.inputs[1]), std::sqrt(2.0))) {
            const QString x = node.inputs[0];
            const int erf = index.soleConsumer(node.outputs.value(0), "Erf");
            const int plusOne = erf < 0 ? -1 : index.soleConsumer(nodes[erf].outputs.value(0), "Add");
            if (plusOne < 0 || !near(scalarOf(known, index.otherInput(plusOne, nodes[erf].outputs.value(0))), 1.0))
                continue;
            const int timesX = index.soleConsumer(nodes[plusOne].outputs.value(0), "Mul");
            if (timesX < 0 || index.otherInput(timesX, nodes[plusOne].outputs.value(0)) != x)
                continue;
            const int half = index.soleConsumer(nodes[timesX].outputs.value(0), "Mul");
            if (half < 0 || !near(scalarOf(known, index.otherInput(half, nodes[timesX].outputs.value(0))), 0.5))
                continue;
            joined[i].opType = QStringLiteral("Gelu");
            joined[i].name = node.name.isEmpty() ? QString() : scopeOf(node.name) + QStringLiteral("Gelu");
            joined[i].inputs = {x};
            joined[i].outputs = nodes[half].outputs;
            joined[i].attributes.clear();
            removed += {erf, plusOne, timesX, half};
        }
    }
    QList<OnnxNodeView> out;
    for (int i = 0; i < joined.size(); ++i)
        if (!removed.contains(i))
            out.append(joined[i]);
    return out;
}

} // namespace ty
