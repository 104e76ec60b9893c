#include "cost_estimate.h"

#include "saturating.h"
#include "shape_rules.h"

#include <QStringList>

#include <algorithm>

namespace ty {

namespace {

constexpr double kTrainingStepFactor = 3;  // forward, the inputs' gradients, the weights' gradients

// The field of a node's output after `step`, from its inputs' fields (empty where not tracked).
ReceptiveField fieldAfter(const FieldStep &step, const std::vector<ReceptiveField> &inputs)
{
    ReceptiveField in;  // the largest of the tracked inputs', axis by axis
    for (const ReceptiveField &field : inputs) {
        if (!field.known())
            continue;
        if (!in.known()) {
            in = field;
            continue;
        }
        if (field.size.size() != in.size.size())
            continue;
        for (size_t axis = 0; axis < in.size.size(); ++axis) {
            in.size[axis] = std::max(in.size[axis], field.size[axis]);
            in.stride[axis] = std::max(in.stride[axis], field.stride[axis]);
        }
    }
    switch (step.kind) {
    case FieldStep::Keep:
        return in;
    case FieldStep::End:
        return ReceptiveField();
    case FieldStep::Window:
        break;
    }
    if (in.size.size() != step.kernel.size()) {  // the first window: one position of its input
        in.size.assign(step.kernel.size(), 1);
        in.stride.assign(step.kernel.size(), 1);
    }
    ReceptiveField out;
    for (size_t axis = 0; axis < step.kernel.size(); ++axis) {
        out.size.push_back(saturatedInt64(double(in.size[axis]) + double(step.kernel[axis] - 1) * double(in.stride[axis])));
        out.stride.push_back(saturatedInt64(double(in.stride[axis]) * double(step.stride[axis])));
    }
    return out;
}

// "14x14" (`pair`) or "2" where every axis has the same value, "6x10" where they differ.
QString axesText(const std::vector<qint64> &values, bool pair)
{
    const bool same = std::all_of(values.begin(), values.end(), [&](qint64 v) { return v == values.front(); });
    if (same && pair && values.size() == 2)
        return QStringLiteral("%1x%1").arg(values.front());
    QStringList parts;
    for (const qint64 v : values)
        parts << QString::number(v);
    return same ? parts.front() : parts.join(QLatin1Char('x'));
}

} // namespace

void estimatePlanCost(PipelinePlan &plan, const TrainingSettings &settings)
{
    CostEstimate &total = plan.report.cost;
    total = CostEstimate();
    total.batchSize = std::max(1, settings.batchSize);
    const double stepFactor = kTrainingStepFactor * double(total.batchSize);
    const KindTable<OpCostRule> &rules = ShapeRules::builtin().costs;
    QHash<QString, ReceptiveField> fields;  // of every planned node's output
    bool allKnown = true;
    double forward = 0;
    for (const PlannedOp &op : plan.ops) {
        NodeCost &cost = plan.report.nodes[op.nodeId].cost;
        const OpCostRule *rule = rules.find(op.blockType);
        if (!rule) {
            allKnown = false;
            continue;
        }
        const OpCost computed = (*rule)(op.params, op.inputShapes, op.shape.output);
        std::vector<ReceptiveField> inputFields;
        for (const QString &input : op.inputs)
            inputFields.push_back(fields.value(input));
        cost.known = true;
        cost.forwardMacs = saturatedInt64(computed.macs);
        cost.trainingStepMacs = saturatedInt64(computed.macs * stepFactor);
        cost.receptiveField = fieldAfter(computed.field, inputFields);
        cost.window = computed.field.kind == FieldStep::Window;
        fields.insert(op.nodeId, cost.receptiveField);
        forward += computed.macs;
    }
    total.forwardMacs = saturatedInt64(forward);
    total.trainingStepMacs = saturatedInt64(forward * stepFactor);
    total.known = allKnown && plan.report.ok();
}

QString macCountText(qint64 macs)
{
    static const char *const units[] = {"k", "M", "G", "T", "P", "E"};
    if (macs < 1000)
        return QString::number(std::max<qint64>(macs, 0));
    double value = double(macs);
    int unit = -1;
    while (value >= 999.5 && unit < 5) {
        value /= 1000;
        ++unit;
    }
    return QStringLiteral("%1%2").arg(value, 0, 'f', value < 9.995 ? 2 : value < 99.95 ? 1 : 0).arg(QLatin1String(units[unit]));
}

QString receptiveFieldText(const ReceptiveField &field)
{
    if (!field.known())
        return QString();
    return QStringLiteral("%1, stride %2").arg(axesText(field.size, true), axesText(field.stride, false));
}

} // namespace ty
