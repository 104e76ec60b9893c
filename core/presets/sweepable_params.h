#pragma once
// The numeric parameters a sweep can search in a preset, grouped by node: every Int and Float parameter of each
// node (a composite node's exposed ones), in the graph's order, then the training settings that change what is
// learned (epochs, batch size, seed, clipping, ...; not bookkeeping such as log_every or threads). Each comes with
// its `--set` key, current value and allowed range, from the block registry's specs. Plain values; thread-safe.

#include "block_descriptor.h"
#include "preset.h"

#include <QList>
#include <QString>

namespace ty {

struct SweepableParam {
    QString node;       // "fc1"; "training" for a training setting
    QString nodeLabel;  // "fc1 · Linear", "training"
    QString name;       // "out_features"
    ParamSpec spec;     // type Int or Float, with its range and doc
    QString current;    // the effective value as text: "256", "0.001"

    QString key() const { return node + QLatin1Char('.') + name; }  // "fc1.out_features"
};

QList<SweepableParam> sweepableParams(const Preset &preset);

// The allowed range as a person reads it: "1 – 65536", "≥ 0", "≤ 10", "any" (a bound of 1e9 or more reads as none).
QString allowedRangeText(const ParamSpec &spec);

// The key a new sweep searches first: the learning rate of the first optimizer ("opt.lr"), else the first
// numeric parameter of a layer, else training.batch_size.
QString defaultSweepKey(const Preset &preset);

} // namespace ty
