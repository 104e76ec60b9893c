#pragma once
// An ONNX model as a Trainyard preset and its weights: what `trainyard-cli import MODEL.onnx` writes (docs/import.md,
// "Importing an ONNX model"). Every node goes through its op's import rule (onnx_import_rules.h); a node whose op
// has none stops the import, naming the node and the op. The layers are named and grouped by the module scopes in
// the nodes' names ("/layer1/layer1.0/conv1/Conv" is node conv1 of a composite block used by node layer1_0, named
// as the model library names torchvision's modules), equal groups share one composite block whose differing
// parameters are exposed, and the weights are named by the layers' paths as Trainyard names its own
// (`layer1_0.conv1.weight`), so that `training.init_from` loads them without a map and torchvision's weights load
// with map "torchvision". The data node is a placeholder (dataset.synthetic of the model's input shape, its `placeholder`
// parameter saying so) that the user replaces with the real data set.

#include "onnx_import_rules.h"
#include "safetensors_file.h"
#include "shape_types.h"

#include <QJsonObject>

namespace ty {

struct OnnxImport {
    QJsonObject preset;         // the preset, as saved
    TensorFile weights;         // Trainyard's weights file: tensors under their stable names, metadata format trainyard-weights
    SampleShape inputShape, outputShape;  // per sample
    int onnxNodes = 0;          // nodes of the file
    int layers = 0;             // Trainyard layers (flattened)
    int topNodes = 0;           // network nodes of the preset's top level
    QStringList composites;     // composite blocks defined, with their uses: "layer1_0 (layer1_0, layer1_1)"
    qint64 parameters = 0;      // values in the weights
    QString producer;           // "pytorch 1.13.1", opset
    qint64 opset = 0;
};

// Imports `model`, naming `fileName` in messages and `weightsFile` (relative to the preset) in training.init_from.
// The preset is checked before it is returned (the pipeline's shapes; the output's shape against the model's).
Result<OnnxImport> importOnnx(const OnnxModelView &model, const QString &fileName, const QString &presetName, const QString &weightsFile,
                              const OnnxImportRules &rules = OnnxImportRules::builtin());

// The naming and grouping step (onnx_import_structure.cpp): the layers needed for `output` as the preset's network
// nodes, edges and composite blocks, reading `input` from `inputEndpoint`; `output` becomes the endpoint
// `*outputEndpoint`. Weights get their paths in `*weights`.
struct ImportedNetwork {
    QJsonArray nodes, edges;
    QJsonObject blocks;
    QString outputEndpoint;
    QList<NamedTensor> weights;
    QStringList composites;
    int topNodes = 0;
};
ImportedNetwork structureImportedNetwork(const QList<ImportedLayer> &layers, const QString &input, const QString &inputEndpoint,
                                         const QString &output);

} // namespace ty
