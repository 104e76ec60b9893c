#pragma once
// Weights into a network from a safetensors file, Trainyard's own or another tool's (training.init_from): which
// tensor of the file goes into which tensor of the network, decided from the file's header (names, dtypes, shapes)
// and the network's tensors alone, and the import report that lists every tensor copied, skipped, missing or
// mismatched. No LibTorch: the engine copies what the plan says (core/engine/detail/warm_start.h), and validation
// plans the same import from the pipeline plan's shapes before anything trains (weightImportIssues).

#include "issue.h"
#include "pipeline_plan.h"
#include "safetensors_file.h"
#include "shape_types.h"
#include "training_stages.h"

#include <QJsonObject>

#include <optional>
#include <utility>
#include <vector>

namespace ty {

// A tensor of the network that weights are loaded into.
struct ModelTensor {
    QString name;       // its stable name: "fc1.weight", "layer1.0.conv1.weight"
    QString layer;      // the flattened node holding it: "fc1", "layer1/0/conv1"
    QString leaf;       // its name within the layer: "weight", "running_mean"
    SampleShape shape;
    TensorDType dtype = TensorDType::F32;
};

// Whether the file's metadata says Trainyard wrote it (a checkpoint or `trainyard-cli export --format safetensors`).
bool isTrainyardWeights(const TensorFile &header);

// Whether a layer's buffer named `leaf` is loaded from another tool's file: batch norm's running mean and variance
// are; its count of batches (num_batches_tracked) and constants such as a normalisation's mean and std are not.
bool isRunningStatistic(const QString &leaf);

// One line of the import report. Copied and mismatched entries have both sides; a skipped one only the file's, a
// missing one only the network's.
struct ImportEntry {
    QString tensor;            // the network's tensor
    QString fileTensor;        // the file's
    SampleShape shape, fileShape;
    QString dtype, fileDtype;  // "F32", ...
    QString reason;            // why it was skipped, is missing or did not fit
};

struct ImportReport {
    QString file;
    QString map;               // "none" (Trainyard's own names), "explicit" or a convention's name
    bool strict = true;
    QList<ImportEntry> copied, skipped, missing, mismatched;

    QString summary() const;   // "6 copied, 1 skipped, 0 missing, 0 mismatched"
    // The report, one entry per line, as `run` prints it: the summary line first.
    QStringList lines() const;
    // {"file", "map", "strict", "counts": {...}, "copied": [...], "skipped": [...], "missing": [...], "mismatched": [...]},
    // each entry {"tensor", "file_tensor", "shape", "file_shape", "dtype", "file_dtype", "reason"} as it applies.
    QJsonObject toJson() const;
};

struct WeightImportRequest {
    QString file;              // named in messages
    WeightMap map;             // not given: the file must be Trainyard's own (its metadata says so)
    QStringList nodes;         // init_from.nodes: only these load (each whole or not at all)
    bool strict = true;
};

struct WeightImportPlan {
    ImportReport report;
    std::vector<std::pair<int, int>> copies;  // (index into the network's tensors, index into the file's)
    QStringList copiedNodes;   // the nodes copied whole, in the network's order
    QStringList notCopied;     // "fc_out: fc_out.weight is F32 [4, 32] there, F32 [6, 32] here"
};

// Plans loading `header`'s tensors into `model`'s (in the network's order). Without a map the file must be
// Trainyard's own and `model` holds every parameter and buffer; with one, `model` holds the parameters and running
// statistics, and the map pairs names (explicitly, by a convention of weight_name_maps.h). A floating-point tensor
// takes an F64, F32, F16 or BF16 one of its shape, converted; any other only its own dtype and shape.
//
// What must load: the nodes of init_from.nodes when given; else with a convention every layer, with an explicit
// map every layer it names a tensor of, and without a map none (whatever fits loads). With `strict`, a tensor of
// those that has no tensor in the file, or one of another shape, is an Error naming it (node and field too);
// without, its node is left out, and the report says why. Errors whatever `strict`: a file that is not Trainyard's
// without a map, a map naming a tensor the network does not have, an ambiguous "auto", nothing fitting at all.
Result<WeightImportPlan> planWeightImport(const QList<ModelTensor> &model, const TensorFile &header, const WeightImportRequest &request);

// The tensors of the network that a map loads into, from the plan (LayerTensor of each op, in execution order);
// nullopt when a layer with parameters has a shape rule that does not list its tensors.
std::optional<QList<ModelTensor>> plannedModelTensors(const PipelinePlan &plan);

// What a run would refuse about `init` with a map, found before training from the file's header and the plan: the
// map's convention, its names, the file's tensors against the network's shapes (planWeightImport). Nothing without
// a map or a file, or when the plan does not list every layer's tensors (the run checks those).
Issues weightImportIssues(const InitFrom &init, const PipelinePlan &plan);

} // namespace ty
