#pragma once
// One ONNX export rule per transform and layer block, keyed by the block's type id and looked up once per node.
// A rule adds the nodes that compute one planned op in evaluation mode and returns the value holding its output
// (for an op that is the identity in evaluation, such as dropout, simply its input).

#include "onnx_graph_builder.h"
#include "pipeline_plan.h"

#include <QHash>

#include <functional>

namespace ty {

// `inputs` are the value names of the op's tensor inputs, in the order of the block's ports.
using OnnxExportRule = std::function<Result<QString>(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)>;

class OnnxExportRules {
public:
    // Every built-in transform and layer block.
    static const OnnxExportRules &builtin();

    void add(const QString &blockType, OnnxExportRule rule);
    void remove(const QString &blockType);
    const OnnxExportRule *find(const QString &blockType) const;  // nullptr when the block has no rule
    QStringList blockTypes() const;                              // sorted

private:
    QHash<QString, OnnxExportRule> m_rules;
};

// Helpers shared by the rules: an integer parameter of the op; a Constant node holding a list of int64 (shapes,
// axes); the rule of an op that is the identity in evaluation mode (dropout).
qint64 intParamOf(const PlannedOp &op, const char *key);
QString intsConstant(OnnxGraphBuilder &graph, const QString &name, std::vector<qint64> values);
Result<QString> identityInEvaluation(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph);

// The exact GELU of `x` (opset 17 has no Gelu): 0.5 x (1 + erf(x / sqrt 2)), its last node named `name`.
QString exactGelu(OnnxGraphBuilder &graph, const QString &x, const QString &name);

// The registrations, one file per category.
void addTransformExportRules(OnnxExportRules &rules);
void addLayerExportRules(OnnxExportRules &rules);
void addSequenceExportRules(OnnxExportRules &rules);
void addImageLayerExportRules(OnnxExportRules &rules);
void addDimensionExportRules(OnnxExportRules &rules);
void addAttentionExportRules(OnnxExportRules &rules);

} // namespace ty
