#pragma once
// Expansion of composite blocks: the preset as the engine, the planner and the exporters see it, with every
// composite node replaced by its inner nodes, named by path ("stage2/unit1/conv1"; "stage2/0/conv1" for the
// first of a repeated block), its exposed parameters bound into them, and its edges joined to the inner
// ports. A preset without composites comes back unchanged.

#include "issue.h"
#include "preset.h"

#include <QHash>

namespace ty {

struct CompositeUse {
    QString path;          // the composite node's path: "stage2", "stage2/unit1"
    QString block;         // its composite block type
    QString outputNode;    // the path of the inner node behind its first output port
};

struct CompositeExpansion {
    Preset preset;         // the flat preset
    Issues issues;         // problems of definitions and their uses, pinned to the node's path
    QList<CompositeUse> uses;  // every composite node, outer before inner
};

CompositeExpansion expandComposites(const Preset &preset);

// The parameter-tensor name of a node's tensor: "stage2/unit1/conv1" and "weight" -> "stage2.unit1.conv1.weight".
QString tensorName(const QString &nodePath, const QString &tensor);

// Whether the node at `path` is one of `ids` or inside one of them (a composite node's path).
bool isWithinAny(const QString &path, const QStringList &ids);

// The top-level node a path belongs to: "stage2/unit1/conv1" -> "stage2".
QString topLevelNode(const QString &nodePath);

} // namespace ty
