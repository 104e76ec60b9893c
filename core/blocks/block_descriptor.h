#pragma once
// The schema of one block type: ports and parameter specs. The single source of defaults and docs for the
// palette, the inspector, validation, the preset loader, --set overrides, `trainyard-cli blocks` and the
// engine's builders, all keyed by the type id.

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

#include <limits>

namespace ty {

enum class BlockCategory { Dataset, Transform, Layer, Loss, Optimizer, Schedule, Metric };
QString categoryName(BlockCategory category);  // "dataset", "transform", ...

// What flows along an edge. An edge may only join ports of the same kind.
enum class PortKind {
    Tensor,     // a batch of samples or features: [batch, ...]
    Target,     // the batch's labels or regression targets
    Loss,       // a scalar loss to minimise
    Schedule,   // a learning-rate schedule driving an optimizer
};
QString portKindName(PortKind kind);

struct PortSpec {
    QString name;
    PortKind kind = PortKind::Tensor;
    bool required = true;
    QString doc;
};

enum class ParamType { Int, Float, Bool, Choice, String, Path, FloatList };
QString paramTypeName(ParamType type);

struct ParamSpec {
    QString name;
    ParamType type = ParamType::Int;
    QJsonValue defaultValue;
    double minimum = -std::numeric_limits<double>::infinity();
    double maximum = std::numeric_limits<double>::infinity();
    QStringList choices;  // for Choice
    QString doc;
    bool namesMetric = false;  // a String naming an epoch metric (val/loss, val/<metric node>): checked against the graph

    QJsonObject toJson() const;
};

struct BlockDescriptor {
    QString typeId;       // stable, e.g. "layer.conv2d"
    BlockCategory category = BlockCategory::Layer;
    QString displayName;  // "Conv 2D"
    QString doc;          // one line
    QList<PortSpec> inputs;
    QList<PortSpec> outputs;
    QList<ParamSpec> params;
    bool higherIsBetter = false;  // metrics: whether a larger value is a better model (accuracy) or not (error)
    // Capabilities: what the views and tools that offer something for some kinds read here, so that none of them
    // compares type ids.
    QString nodeIdPrefix;            // the id a new node starts from ("fc", "conv"); empty: from the category or type id
    bool yieldsTextWindows = false;  // a dataset of character windows (ids into its class names, which are the
                                     // characters), each labelled with the character that follows
    bool takesDataStatistics = false;  // a transform whose float lists `mean` and `std` can be set to the training
                                       // split's per-channel statistics
    bool measuredPerPass = false;  // a metric of a whole evaluation pass (val/, test/), with no per-step train/ figure

    const ParamSpec *param(const QString &name) const;
    const PortSpec *input(const QString &name) const;
    const PortSpec *output(const QString &name) const;
    // The explicit value if given in `values`, else the default.
    QJsonValue value(const QJsonObject &values, const QString &name) const;
    // Every parameter with its effective value.
    QJsonObject effectiveParams(const QJsonObject &values) const;
    QJsonObject toJson() const;

    // A copy with a capability, for declaring a block: registry.add(layer(...).withNodeIdPrefix(QStringLiteral("fc"))).
    BlockDescriptor withNodeIdPrefix(const QString &prefix) const;
    BlockDescriptor yieldingTextWindows() const;
    BlockDescriptor takingDataStatistics() const;
    BlockDescriptor measuringPerPass() const;
};

} // namespace ty
