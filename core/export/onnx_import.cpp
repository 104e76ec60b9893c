#include "onnx_import.h"

#include "onnx_export.h"
#include "preset_format.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QSet>

namespace ty {

namespace {

// The layers that `output` depends on, in order.
QList<ImportedLayer> layersNeededFor(const QList<ImportedLayer> &layers, const QString &output)
{
    QHash<QString, int> producer;
    for (int i = 0; i < layers.size(); ++i)
        producer.insert(layers[i].output, i);
    QSet<int> needed;
    QStringList pending{output};
    while (!pending.isEmpty()) {
        const int i = producer.value(pending.takeLast(), -1);
        if (i < 0 || needed.contains(i))
            continue;
        needed.insert(i);
        pending += layers[i].inputs;
    }
    QList<ImportedLayer> out;
    for (int i = 0; i < layers.size(); ++i)
        if (needed.contains(i))
            out << layers[i];
    return out;
}

// The placeholder data set: synthetic data of the model's input shape, saying that it stands in for the real one.
Result<QJsonObject> placeholderData(const SampleShape &input, qint64 classes, const QString &fileName)
{
    const QString why = QStringLiteral("placeholder from importing %1: replace this node with your data set of %2 samples")
                            .arg(QFileInfo(fileName).fileName(), shapeText(input));
    QJsonObject params{{QStringLiteral("samples"), 64}, {QStringLiteral("test_samples"), 64}, {QStringLiteral("classes"), double(classes)},
                       {QStringLiteral("placeholder"), why}};
    if (input.size() == 1) {
        params.insert(QStringLiteral("kind"), QStringLiteral("blobs"));
        params.insert(QStringLiteral("features"), double(input[0]));
    } else if (input.size() == 3 && input[1] == input[2]) {
        params.insert(QStringLiteral("kind"), QStringLiteral("images"));
        params.insert(QStringLiteral("features"), double(input[1]));
        params.insert(QStringLiteral("channels"), double(input[0]));
    } else {
        return Error::inFile(fileName, QStringLiteral("the model's input has samples of %1; the import takes [features] and square images "
                                                      "[channels, side, side]").arg(shapeText(input)), QStringLiteral("graph.input"));
    }
    return QJsonObject{{QStringLiteral("id"), QStringLiteral("data")}, {QStringLiteral("block"), QStringLiteral("dataset.synthetic")},
                       {QStringLiteral("params"), params}, {QStringLiteral("pos"), QJsonArray{40, 40}}};
}

QJsonObject node(const char *id, const char *block, int x, int y, const QJsonObject &params = {})
{
    QJsonObject n{{QStringLiteral("id"), QString::fromLatin1(id)}, {QStringLiteral("block"), QString::fromLatin1(block)},
                  {QStringLiteral("pos"), QJsonArray{x, y}}};
    if (!params.isEmpty())
        n.insert(QStringLiteral("params"), params);
    return n;
}

QJsonObject edge(const QString &from, const QString &to) { return QJsonObject{{QStringLiteral("from"), from}, {QStringLiteral("to"), to}}; }

} // namespace

Result<OnnxImport> importOnnx(const OnnxModelView &model, const QString &fileName, const QString &presetName, const QString &weightsFile,
                              const OnnxImportRules &rules)
{
    if (model.inputs.size() != 1)
        return Error::inFile(fileName, QStringLiteral("the model has %1 inputs; the import takes models of one input").arg(model.inputs.size()),
                             QStringLiteral("graph.input"));
    if (model.outputs.size() != 1)
        return Error::inFile(fileName, QStringLiteral("the model has %1 outputs; the import takes models of one output").arg(model.outputs.size()),
                             QStringLiteral("graph.output"));
    const OnnxValueShape &input = model.inputs.first();
    if (input.elementType != QStringLiteral("FLOAT") || input.dims.size() < 2)
        return Error::inFile(fileName, QStringLiteral("the input \"%1\" must be a FLOAT tensor [batch, ...] (it is %2 of rank %3)")
                                           .arg(input.name, input.elementType).arg(input.dims.size()), QStringLiteral("graph.input"));
    SampleShape inputShape;
    for (size_t i = 1; i < input.dims.size(); ++i) {
        if (input.dims[i] <= 0)
            return Error::inFile(fileName, QStringLiteral("the input \"%1\" has no fixed size in dimension %2; the import needs the sample shape")
                                               .arg(input.name).arg(i), QStringLiteral("graph.input"));
        inputShape.push_back(input.dims[i]);
    }

    OnnxImportState state;
    state.file = fileName;
    state.opset = model.opset;
    for (const OnnxTensor &t : model.initializers)
        state.constants.insert(t.name, t);
    state.ranks.insert(input.name, int(input.dims.size()));
    const QList<OnnxNodeView> nodes = joinImportPatterns(model.nodes, state.constants, {model.outputs.first().name});
    for (const OnnxNodeView &n : nodes) {
        const OnnxImportRule *rule = n.domain.isEmpty() ? rules.find(n.opType) : nullptr;
        if (!rule) {
            Error e = Error::atNode(n.label(), QStringLiteral("ONNX op %1%2 has no import rule (ops that import: %3)")
                                                   .arg(n.domain.isEmpty() ? QString() : n.domain + QLatin1Char('.'), n.opType,
                                                        rules.opTypes().join(QStringLiteral(", "))), QStringLiteral("op_type"));
            e.file = fileName;
            return e;
        }
        if (n.outputs.isEmpty() || n.outputs[0].isEmpty())
            continue;
        OnnxImportContext context(n, state);
        const Status done = (*rule)(context);
        if (!done)
            return done.error();
    }

    const QString output = state.resolve(model.outputs.first().name);
    if (!state.ranks.contains(output) || output == input.name)
        return Error::inFile(fileName, QStringLiteral("the output \"%1\" is not computed from the input by any layer").arg(model.outputs.first().name),
                             QStringLiteral("graph.output"));
    const QList<ImportedLayer> layers = layersNeededFor(state.layers, output);
    const ImportedNetwork net = structureImportedNetwork(layers, input.name, QStringLiteral("data.features"), output);

    const std::vector<qint64> &outDims = model.outputs.first().dims;
    const qint64 classes = outDims.empty() ? -1 : outDims.back();
    if (classes < 2 || classes > 1000)
        return Error::inFile(fileName, QStringLiteral("the output \"%1\" has %2 values per sample; the import takes classifiers of 2 to 1000 classes")
                                           .arg(model.outputs.first().name).arg(classes), QStringLiteral("graph.output"));
    const Result<QJsonObject> data = placeholderData(inputShape, classes, fileName);
    if (!data)
        return data.error();

    QJsonArray nodesJson{data.value()};
    for (const QJsonValue &n : net.nodes)
        nodesJson.append(n);
    const int bottom = 40 + ((int(net.nodes.size()) + 1) / 5 + 1) * 140;
    nodesJson.append(node("loss", "loss.cross_entropy", 40, bottom));
    nodesJson.append(node("accuracy", "metric.accuracy", 260, bottom));
    nodesJson.append(node("opt", "optimizer.adam", 480, bottom, {{QStringLiteral("lr"), 1e-4}}));
    QJsonArray edgesJson = net.edges;
    edgesJson.append(edge(net.outputEndpoint, QStringLiteral("loss.input")));
    edgesJson.append(edge(QStringLiteral("data.target"), QStringLiteral("loss.target")));
    edgesJson.append(edge(net.outputEndpoint, QStringLiteral("accuracy.input")));
    edgesJson.append(edge(QStringLiteral("data.target"), QStringLiteral("accuracy.target")));
    edgesJson.append(edge(QStringLiteral("loss.loss"), QStringLiteral("opt.loss")));

    QJsonObject presetJson{
        {QStringLiteral("format"), QStringLiteral("trainyard-preset")},
        {QStringLiteral("version"), Preset::kFormatVersion},
        {QStringLiteral("name"), presetName},
        {QStringLiteral("description"),
         QStringLiteral("Imported from %1 (%2, opset %3). The data node is a placeholder: replace it with your data set. training.epochs 0 "
                        "evaluates the imported weights; set it to train on.").arg(QFileInfo(fileName).fileName(), model.producer.isEmpty() ? QStringLiteral("unknown producer") : model.producer).arg(model.opset)},
        {QStringLiteral("training"), QJsonObject{{QStringLiteral("epochs"), 0}, {QStringLiteral("batch_size"), 32},
                                                 {QStringLiteral("eval_batch_size"), 32},
                                                 {QStringLiteral("init_from"), QJsonObject{{QStringLiteral("file"), weightsFile}}}}},
        {QStringLiteral("nodes"), nodesJson},
        {QStringLiteral("edges"), edgesJson}};
    if (!net.blocks.isEmpty())
        presetJson.insert(QStringLiteral("blocks"), net.blocks);

    // The preset must load and plan as the model computes: every shape, and the output's (planned before the weights
    // file it names is written).
    QJsonObject planned = presetJson;
    QJsonObject training = planned.value(QStringLiteral("training")).toObject();
    training.remove(QStringLiteral("init_from"));
    training.insert(QStringLiteral("epochs"), 1);
    planned.insert(QStringLiteral("training"), training);
    Result<Preset> preset = presetFromJson(planned, fileName);
    if (!preset)
        return preset.error();
    const Result<PipelinePlan> plan = planPresetForExport(preset.value());
    if (!plan) {
        Error e = plan.error();
        e.message = QStringLiteral("the imported network does not plan: %1").arg(e.message);
        e.file = fileName;
        return e;
    }
    OnnxImport result;
    result.inputShape = inputShape;
    const QString head = plan.value().losses.empty() ? QString() : plan.value().losses.front().input;
    for (const PlannedOp &op : plan.value().ops)
        if (op.nodeId == head)
            result.outputShape = op.shape.output;
    SampleShape expected;
    for (size_t i = 1; i < outDims.size(); ++i)
        expected.push_back(outDims[i]);
    if (result.outputShape != expected)
        return Error::inFile(fileName, QStringLiteral("the imported network computes %1 per sample, but the model's output \"%2\" is %3")
                                           .arg(shapeText(result.outputShape), model.outputs.first().name, shapeText(expected)), QStringLiteral("graph.output"));
    result.preset = presetJson;
    result.weights.tensors = net.weights;
    result.weights.metadata = {{QStringLiteral("format"), QStringLiteral("trainyard-weights")},
                               {QStringLiteral("source"), QFileInfo(fileName).fileName()},
                               {QStringLiteral("imported_by"), QStringLiteral("trainyard-cli import")}};
    for (const NamedTensor &t : net.weights)
        result.parameters += t.elementCount();
    result.onnxNodes = int(model.nodes.size());
    result.layers = int(layers.size());
    result.topNodes = net.topNodes;
    result.composites = net.composites;
    result.producer = model.producer;
    result.opset = model.opset;
    return result;
}

} // namespace ty
