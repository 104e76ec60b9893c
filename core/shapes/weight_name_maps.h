#pragma once
// How another tool names its tensors (training.init_from's "map"): the named conventions, one row each in a table
// (a convention is a function from the network's tensors and the file's header to a pairing), and explicit maps.
// Only names (and, for "auto", shapes) decide a pairing here; weight_import.h then checks dtypes and shapes, and
// decides what is copied. A new convention (for example torchvision's names for the model library) is one row.

#include "error.h"
#include "safetensors_file.h"
#include "weight_import.h"

#include <QHash>

#include <vector>

namespace ty {

// Which tensor of the file each tensor of the network takes.
struct NamePairing {
    std::vector<int> source;           // per network tensor: an index into the file's tensors, or -1
    QStringList missingReason;         // per network tensor with -1: why ("the file has no layer 4")
    QHash<int, QString> skippedReason; // file tensors no network tensor takes, where the rule knows why
};

using NamePairingRule = Result<NamePairing> (*)(const QList<ModelTensor> &model, const TensorFile &file);

struct NameConvention {
    QString name;        // as init_from.map names it: "sequential"
    QString summary;     // one line for messages and `docs/import.md`
    NamePairingRule pair;
};

// Every convention: "names" (the file names its tensors as Trainyard does: fc1.weight), "sequential" (PyTorch's
// nn.Sequential: 0.weight, 3.bias), "torchvision" (torchvision's models, as the bundled model library names its
// nodes: layer1_0 is layer1.0), "auto" (by order and shape).
const QList<NameConvention> &nameConventions();
const NameConvention *findNameConvention(const QString &name);  // nullptr for a name not in the table
QString nameConventionList();  // "names, sequential, torchvision, auto"

// An explicit map, {network tensor: file tensor}: an Error for a network name that `model` lacks.
Result<NamePairing> explicitPairing(const QList<QPair<QString, QString>> &pairs, const QList<ModelTensor> &model,
                                    const TensorFile &file);

// The same names, one to one: Trainyard's own files, and the "names" convention.
NamePairing sameNamePairing(const QList<ModelTensor> &model, const TensorFile &file);

} // namespace ty
