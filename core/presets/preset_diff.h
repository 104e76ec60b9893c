#pragma once
// What differs between two presets, node by node and parameter by parameter, for the run browser's "Diff"
// and for anyone comparing two preset files.
//
// Parameters are compared by their EFFECTIVE values (the explicit value, else the block's default from the
// BlockRegistry; training keys likewise from trainingSpecs()), so writing a default out explicitly is no
// difference. Nodes are matched by id. Canvas positions are layout, not experiment, and are ignored.
// Pure functions on values; safe from any thread.

#include "preset.h"

#include <QList>
#include <QString>

namespace ty {

enum class PresetDifferenceKind {
    NameChanged,
    DescriptionChanged,
    NodeAdded,        // in b only
    NodeRemoved,      // in a only
    BlockChanged,     // same id, another block type
    ParamChanged,     // same id, a parameter's effective value differs (also: known on one side only)
    EdgeAdded,        // in b only
    EdgeRemoved,      // in a only
    TrainingChanged,  // a training key's effective value differs
};

struct PresetDifference {
    PresetDifferenceKind kind = PresetDifferenceKind::ParamChanged;
    QString node;    // the node concerned (for an edge: the node it arrives at); empty for name/description/training
    QString field;   // parameter name, training key, or the edge as "a.out -> b.in"; empty otherwise
    QString before;  // the value in a as a person types it (paramValueText); empty when absent there
    QString after;   // the value in b; empty when absent there
    QString text;    // one readable line: "conv1.out_channels: 32 -> 64", "node drop added (layer.dropout)"

    bool operator==(const PresetDifference &other) const
    {
        return kind == other.kind && node == other.node && field == other.field && before == other.before
            && after == other.after && text == other.text;
    }
};

// Every difference from `a` to `b`, in a stable order: name, description, nodes in a's order (removed or
// changed, each node's parameters in its block's declaration order), nodes added in b's order, edges removed
// (a's order), edges added (b's order), then training keys in trainingSpecs() order and unknown keys sorted.
// Empty when the presets are equivalent.
QList<PresetDifference> diffPresets(const Preset &a, const Preset &b);

// A short label naming a variant of a preset by what was changed, for run names: "fc1.out_features=64,
// training.epochs=5" for up to three parameter or training changes; "edited" when nodes, blocks or edges changed
// or there are more changes; empty when nothing but the name or description differs.
QString variantLabel(const QList<PresetDifference> &differences);

// "name", "node added", "parameter", ... (for a column of a table).
QString presetDifferenceKindName(PresetDifferenceKind kind);

} // namespace ty
