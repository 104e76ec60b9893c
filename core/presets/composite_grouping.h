#pragma once
// Grouping nodes into a new composite block and ungrouping a composite node back into its inner nodes: the
// edits behind the app's Group into Block (Ctrl+G) and Ungroup, computed here so that they are tested without a
// window. Each returns what to remove and what to add; the app applies it as one undo step.

#include "block_descriptor.h"
#include "error.h"
#include "preset.h"

#include <QJsonObject>
#include <QStringList>

namespace ty {

struct Grouping {
    QString blockName;       // the new composite's name
    QJsonObject definition;  // its definition, for the preset's `blocks`
    Node node;               // the node that replaces the grouped ones
    QList<Edge> edges;       // the edges between it and the rest of the graph
};

// Groups `nodeIds` (transforms, layers and composites) into a new composite: the edges among them become its
// inner edges; each outside output feeding the group becomes an input port ("in", or "in1", "in2", ... in graph
// order) feeding every inner port it fed; each inner output feeding the outside becomes an output port ("out",
// "out1", ...). Refused, with the reason, when a node is of another kind or the group has no input or output.
Result<Grouping> groupIntoComposite(const Preset &preset, const QStringList &nodeIds);

struct Ungrouping {
    QList<Node> nodes;   // the inner nodes with the composite's values bound into them, under their inner ids
                         // (NODE_INNER for an id the rest of the graph already has)
    QList<Edge> edges;   // their inner edges and those joining them to the rest of the graph
};

// Replaces the composite node `nodeId` by its inner nodes. Refused for a node that is not a composite, or one
// that repeats.
Result<Ungrouping> ungroupComposite(const Preset &preset, const QString &nodeId);

// The parameters of a composite's inner nodes that a user may expose: "NODE.PARAM" with its spec and the value
// the node gives it (a built-in block's parameter, or a nested composite's exposed one), in inner node order.
struct InnerParam {
    QString path;      // "conv.kernel_size"
    ParamSpec spec;
    QJsonValue value;  // its value in the definition (the default where the inner node sets none)
    QString exposedAs; // the exposed parameter bound to it, if any
};
QList<InnerParam> innerParams(const Preset &preset, const QString &block);

// The definition of composite `block` with the inner parameter `path` ("NODE.PARAM") exposed under a fresh name
// (the parameter's own, else NODE_PARAM), its default the inner value. Refused when it is exposed already.
Result<QJsonObject> exposeInnerParam(const Preset &preset, const QString &block, const QString &path, QString *exposedName = nullptr);

} // namespace ty
