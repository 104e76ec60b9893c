#pragma once
// Plain types of shape inference: per-sample shapes, a node's output shape and parameter count, the report
// of a whole preset.

#include "issue.h"

#include <QHash>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace ty {

using SampleShape = std::vector<int64_t>;  // per sample, without the batch dimension

struct NodeShape {
    std::vector<qint64> outputShape;  // per sample, without the batch dimension; empty when not known
    qint64 paramCount = 0;            // trainable parameters of this node
    bool known = false;
};

// One training stage as validation reports it (core/shapes/stage_inspection.h).
struct StageSummary {
    QString name;
    int epochs = 0;
    qint64 trainableParams = 0, frozenParams = 0;
    QStringList frozenNodes;   // in graph order
    QStringList overrides;     // the stage's own KEY=VALUE settings
    bool resetOptimizer = false;
};

struct ShapeReport {
    QHash<QString, NodeShape> nodes;  // by node id
    qint64 totalParams = 0;
    QList<StageSummary> stages;       // empty for a preset without training.stages
    Issues issues;                    // structural and shape issues together
    bool ok() const { return !hasErrors(issues); }
};

QString shapeText(const SampleShape &shape);            // "[1, 28, 28]"
QString shapeToText(const std::vector<qint64> &shape);  // the same for NodeShape::outputShape

} // namespace ty
