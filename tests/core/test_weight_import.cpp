// core/shapes/weight_import.h and weight_name_maps.h, without LibTorch: another tool's tensor names paired with the
// network's by an explicit map, by nn.Sequential's indices and by order and shape; the import report lists every
// tensor copied, skipped, missing or mismatched; strict refusals name the tensor; "auto" refuses an ambiguity; a
// file that is not Trainyard's needs a map; pickled PyTorch files are refused by their first bytes; validation
// finds the same problems from the plan's shapes and the file's header.

#include "test_suite.h"
#include "core_test_support.h"

#include "pickled_file.h"
#include "preset_inspection.h"
#include "safetensors_file.h"
#include "weight_import.h"
#include "weight_name_maps.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;
using tytest::node;

namespace {

ModelTensor tensor(const QString &layer, const QString &leaf, SampleShape shape)
{
    return ModelTensor{layer + QLatin1Char('.') + leaf, layer, leaf, std::move(shape), TensorDType::F32};
}

// fc1 [16, 8], bn1 (16 channels with running statistics), fc2 [4, 16]: a network's tensors as the engine lists them.
QList<ModelTensor> network(int outputs = 4)
{
    return {tensor(QStringLiteral("fc1"), QStringLiteral("weight"), {16, 8}), tensor(QStringLiteral("fc1"), QStringLiteral("bias"), {16}),
            tensor(QStringLiteral("bn1"), QStringLiteral("weight"), {16}), tensor(QStringLiteral("bn1"), QStringLiteral("bias"), {16}),
            tensor(QStringLiteral("bn1"), QStringLiteral("running_mean"), {16}), tensor(QStringLiteral("bn1"), QStringLiteral("running_var"), {16}),
            tensor(QStringLiteral("fc2"), QStringLiteral("weight"), {outputs, 16}), tensor(QStringLiteral("fc2"), QStringLiteral("bias"), {outputs})};
}

NamedTensor fileTensor(const QString &name, QList<qint64> shape, TensorDType dtype = TensorDType::F32)
{
    NamedTensor t;
    t.name = name;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.data = QByteArray(int(t.elementCount() * tensorDTypeSize(dtype)), '\0');
    return t;
}

// The state_dict of nn.Sequential(Linear(8, 16), BatchNorm1d(16), ReLU(), Linear(16, outputs)), in its order.
TensorFile sequentialFile(int outputs = 4, TensorDType dtype = TensorDType::F32)
{
    TensorFile file;
    file.tensors = {fileTensor(QStringLiteral("0.weight"), {16, 8}, dtype), fileTensor(QStringLiteral("0.bias"), {16}, dtype),
                    fileTensor(QStringLiteral("1.weight"), {16}, dtype), fileTensor(QStringLiteral("1.bias"), {16}, dtype),
                    fileTensor(QStringLiteral("1.running_mean"), {16}, dtype), fileTensor(QStringLiteral("1.running_var"), {16}, dtype),
                    fileTensor(QStringLiteral("1.num_batches_tracked"), {}, TensorDType::I64),
                    fileTensor(QStringLiteral("3.weight"), {outputs, 16}, dtype), fileTensor(QStringLiteral("3.bias"), {outputs}, dtype)};
    return file;
}

WeightImportRequest request(const WeightMap &map, bool strict = true, const QStringList &nodes = {})
{
    return WeightImportRequest{QStringLiteral("/models/mlp.safetensors"), map, nodes, strict};
}

WeightMap convention(const QString &name)
{
    WeightMap map;
    map.convention = name;
    return map;
}

// "fc1.weight<-0.weight" for each copy of a plan.
QStringList copiesOf(const WeightImportPlan &plan, const QList<ModelTensor> &model, const TensorFile &file)
{
    QStringList out;
    for (const auto &[m, f] : plan.copies)
        out << model[m].name + QStringLiteral("<-") + file.tensors[f].name;
    return out;
}

QStringList namesOf(const QList<ImportEntry> &entries, bool fileSide)
{
    QStringList out;
    for (const ImportEntry &e : entries)
        out << (fileSide ? e.fileTensor : e.tensor);
    return out;
}

} // namespace

class TestWeightImport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // nn.Sequential's indices go to the layers with tensors in graph order, the ReLU's index absent; the count of
    // batches is skipped; the report lists every tensor of both sides.
    void sequentialPairsLayersInGraphOrder()
    {
        const QList<ModelTensor> model = network();
        const TensorFile file = sequentialFile();
        const Result<WeightImportPlan> plan = planWeightImport(model, file, request(convention(QStringLiteral("sequential"))));
        QVERIFY2(plan.ok(), qPrintable(plan.error().toString()));
        QCOMPARE(copiesOf(plan.value(), model, file),
                 (QStringList{"fc1.weight<-0.weight", "fc1.bias<-0.bias", "bn1.weight<-1.weight", "bn1.bias<-1.bias",
                              "bn1.running_mean<-1.running_mean", "bn1.running_var<-1.running_var", "fc2.weight<-3.weight", "fc2.bias<-3.bias"}));
        const ImportReport &report = plan.value().report;
        QCOMPARE(report.map, QStringLiteral("sequential"));
        QCOMPARE(report.copied.size(), 8);
        QCOMPARE(namesOf(report.skipped, true), QStringList{QStringLiteral("1.num_batches_tracked")});
        QVERIFY(report.missing.isEmpty() && report.mismatched.isEmpty());
        QCOMPARE(report.summary(), QStringLiteral("8 copied, 1 skipped, 0 missing, 0 mismatched"));
        QCOMPARE(plan.value().copiedNodes, (QStringList{QStringLiteral("fc1"), QStringLiteral("bn1"), QStringLiteral("fc2")}));
        const QJsonObject json = report.toJson();
        QCOMPARE(json.value(QStringLiteral("counts")).toObject().value(QStringLiteral("copied")).toInt(), 8);
        const QJsonObject first = json.value(QStringLiteral("copied")).toArray().first().toObject();
        QCOMPARE(first.value(QStringLiteral("tensor")).toString(), QStringLiteral("fc1.weight"));
        QCOMPARE(first.value(QStringLiteral("file_tensor")).toString(), QStringLiteral("0.weight"));
        QCOMPARE(first.value(QStringLiteral("shape")).toArray(), (QJsonArray{16, 8}));
        QVERIFY2(report.lines().at(1).contains(QStringLiteral("fc1.weight [16, 8] <- 0.weight F32 [16, 8]")), qPrintable(report.lines().join('\n')));

        // Indices in number order, not text order; a sequence inside a module ("net.") is one too.
        TensorFile nested;
        for (const char *name : {"net.10.weight", "net.10.bias", "net.2.weight", "net.2.bias"})
            nested.tensors << fileTensor(QString::fromLatin1(name), QString::fromLatin1(name).startsWith(QLatin1String("net.10"))
                                                                        ? (QString::fromLatin1(name).endsWith(QLatin1String("weight")) ? QList<qint64>{4, 16} : QList<qint64>{4})
                                                                        : (QString::fromLatin1(name).endsWith(QLatin1String("weight")) ? QList<qint64>{16, 8} : QList<qint64>{16}));
        const QList<ModelTensor> twoLayers{model[0], model[1], model[6], model[7]};
        const Result<WeightImportPlan> ordered = planWeightImport(twoLayers, nested, request(convention(QStringLiteral("sequential"))));
        QVERIFY2(ordered.ok(), qPrintable(ordered.error().toString()));
        QCOMPARE(copiesOf(ordered.value(), twoLayers, nested),
                 (QStringList{"fc1.weight<-net.2.weight", "fc1.bias<-net.2.bias", "fc2.weight<-net.10.weight", "fc2.bias<-net.10.bias"}));
    }

    // Strict (the default) refuses a tensor of another shape, naming both sides; lenient leaves its layer out and
    // reports it. Half and double precision files are accepted (converted by the engine).
    void strictRefusesMismatchesNamingTheTensor()
    {
        const QList<ModelTensor> model = network(5);
        const TensorFile file = sequentialFile(4);
        const Result<WeightImportPlan> strict = planWeightImport(model, file, request(convention(QStringLiteral("sequential"))));
        QVERIFY(!strict.ok());
        QCOMPARE(strict.error().node, QStringLiteral("fc2"));
        QCOMPARE(strict.error().file, QStringLiteral("/models/mlp.safetensors"));
        QVERIFY2(strict.error().message.contains(QStringLiteral("fc2.weight is F32 [5, 16] here, but the file's 3.weight is F32 [4, 16]")),
                 qPrintable(strict.error().message));

        const Result<WeightImportPlan> lenient = planWeightImport(model, file, request(convention(QStringLiteral("sequential")), false));
        QVERIFY2(lenient.ok(), qPrintable(lenient.error().toString()));
        const ImportReport &report = lenient.value().report;
        QCOMPARE(lenient.value().copiedNodes, (QStringList{QStringLiteral("fc1"), QStringLiteral("bn1")}));
        QCOMPARE(namesOf(report.mismatched, false), (QStringList{QStringLiteral("fc2.weight"), QStringLiteral("fc2.bias")}));
        QCOMPARE(report.mismatched.first().fileShape, (SampleShape{4, 16}));
        QCOMPARE(report.mismatched.first().shape, (SampleShape{5, 16}));
        QCOMPARE(report.copied.size(), 6);

        for (TensorDType dtype : {TensorDType::F16, TensorDType::BF16, TensorDType::F64}) {
            const Result<WeightImportPlan> converted = planWeightImport(network(), sequentialFile(4, dtype), request(convention(QStringLiteral("sequential"))));
            QVERIFY2(converted.ok(), qPrintable(tensorDTypeName(dtype)));
            QCOMPARE(converted.value().report.copied.first().fileDtype, tensorDTypeName(dtype));
        }
        // An integer tensor where a float one belongs does not fit.
        TensorFile integers = sequentialFile();
        integers.tensors[0].dtype = TensorDType::I32;
        const Result<WeightImportPlan> wrongType = planWeightImport(network(), integers, request(convention(QStringLiteral("sequential"))));
        QVERIFY(!wrongType.ok());
        QVERIFY2(wrongType.error().message.contains(QStringLiteral("fc1.weight")), qPrintable(wrongType.error().message));
    }

    // A layer the file lacks is missing: refused strictly, naming it; a file of names nn.Sequential never gives is
    // refused whatever the strictness.
    void sequentialMissingLayersAndForeignNames()
    {
        TensorFile shorter = sequentialFile();
        shorter.tensors.erase(shorter.tensors.end() - 2, shorter.tensors.end());
        const Result<WeightImportPlan> refused = planWeightImport(network(), shorter, request(convention(QStringLiteral("sequential"))));
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.contains(QStringLiteral("fc2.weight [4, 16] has no tensor in the file")), qPrintable(refused.error().message));
        const Result<WeightImportPlan> lenient = planWeightImport(network(), shorter, request(convention(QStringLiteral("sequential")), false));
        QVERIFY(lenient.ok());
        QCOMPARE(namesOf(lenient.value().report.missing, false), (QStringList{QStringLiteral("fc2.weight"), QStringLiteral("fc2.bias")}));

        TensorFile named = sequentialFile();
        named.tensors[0].name = QStringLiteral("features.weight");
        const Result<WeightImportPlan> foreign = planWeightImport(network(), named, request(convention(QStringLiteral("sequential")), false));
        QVERIFY(!foreign.ok());
        QVERIFY2(foreign.error().message.contains(QStringLiteral("\"features.weight\", which is not a name nn.Sequential gives")),
                 qPrintable(foreign.error().message));
        QCOMPARE(foreign.error().field, QStringLiteral("training.init_from.map"));
    }

    // "auto" pairs groups of tensors with layers by their names and shapes, whatever the file calls them; where the
    // file has more groups of a kind than the network has layers of it, it refuses, naming both.
    void autoMatchesByShapeAndRefusesAmbiguity()
    {
        TensorFile renamed = sequentialFile();
        const QStringList names{"encoder.weight", "encoder.bias", "norm.weight", "norm.bias", "norm.running_mean", "norm.running_var",
                                "norm.num_batches_tracked", "head.weight", "head.bias"};
        for (int i = 0; i < names.size(); ++i)
            renamed.tensors[i].name = names[i];
        const QList<ModelTensor> model = network();
        const Result<WeightImportPlan> matched = planWeightImport(model, renamed, request(convention(QStringLiteral("auto"))));
        QVERIFY2(matched.ok(), qPrintable(matched.error().toString()));
        QCOMPARE(copiesOf(matched.value(), model, renamed),
                 (QStringList{"fc1.weight<-encoder.weight", "fc1.bias<-encoder.bias", "bn1.weight<-norm.weight", "bn1.bias<-norm.bias",
                              "bn1.running_mean<-norm.running_mean", "bn1.running_var<-norm.running_var", "fc2.weight<-head.weight",
                              "fc2.bias<-head.bias"}));

        // Two hidden layers of the same kind in the network, three in the file: which two is not to be guessed.
        QList<ModelTensor> twins{tensor(QStringLiteral("fc1"), QStringLiteral("weight"), {16, 16}), tensor(QStringLiteral("fc1"), QStringLiteral("bias"), {16}),
                                 tensor(QStringLiteral("fc2"), QStringLiteral("weight"), {16, 16}), tensor(QStringLiteral("fc2"), QStringLiteral("bias"), {16})};
        TensorFile three;
        for (const char *prefix : {"a", "b", "c"})
            three.tensors << fileTensor(QString::fromLatin1(prefix) + QStringLiteral(".weight"), {16, 16})
                          << fileTensor(QString::fromLatin1(prefix) + QStringLiteral(".bias"), {16});
        const Result<WeightImportPlan> ambiguous = planWeightImport(twins, three, request(convention(QStringLiteral("auto")), false));
        QVERIFY(!ambiguous.ok());
        QVERIFY2(ambiguous.error().message.contains(QStringLiteral("map \"auto\" is ambiguous: the file has 3 groups of tensors (a, b, c) "
                                                                   "with the names and shapes of 2 layers of this network (fc1, fc2")),
                 qPrintable(ambiguous.error().message));
        // As many of a kind on both sides: paired in order.
        three.tensors.erase(three.tensors.end() - 2, three.tensors.end());
        const Result<WeightImportPlan> inOrder = planWeightImport(twins, three, request(convention(QStringLiteral("auto"))));
        QVERIFY(inOrder.ok());
        QCOMPARE(copiesOf(inOrder.value(), twins, three), (QStringList{"fc1.weight<-a.weight", "fc1.bias<-a.bias", "fc2.weight<-b.weight", "fc2.bias<-b.bias"}));
    }

    // An explicit map loads the layers it names (each whole); a name the network lacks is refused; a listed file
    // tensor that is not there is refused strictly; the layers it leaves out are reported missing, not refused.
    void explicitMapNamesTensors()
    {
        const QList<ModelTensor> model = network();
        const TensorFile file = sequentialFile();
        WeightMap map;
        map.pairs = {{QStringLiteral("fc1.weight"), QStringLiteral("0.weight")}, {QStringLiteral("fc1.bias"), QStringLiteral("0.bias")}};
        const Result<WeightImportPlan> plan = planWeightImport(model, file, request(map));
        QVERIFY2(plan.ok(), qPrintable(plan.error().toString()));
        QCOMPARE(copiesOf(plan.value(), model, file), (QStringList{"fc1.weight<-0.weight", "fc1.bias<-0.bias"}));
        QCOMPARE(plan.value().report.map, QStringLiteral("explicit"));
        QCOMPARE(plan.value().report.missing.size(), 6);
        QCOMPARE(plan.value().report.missing.first().reason, QStringLiteral("not in the map"));
        QCOMPARE(plan.value().report.skipped.size(), 7);

        WeightMap half = map;
        half.pairs.removeLast();  // fc1.bias left out: fc1 is not whole
        const Result<WeightImportPlan> incomplete = planWeightImport(model, file, request(half));
        QVERIFY(!incomplete.ok());
        QVERIFY2(incomplete.error().message.contains(QStringLiteral("fc1.bias [16] has no tensor in the file (not in the map)")),
                 qPrintable(incomplete.error().message));

        WeightMap absent = map;
        absent.pairs[1].second = QStringLiteral("0.biass");
        const Result<WeightImportPlan> typo = planWeightImport(model, file, request(absent));
        QVERIFY(!typo.ok());
        QVERIFY2(typo.error().message.contains(QStringLiteral("the map names \"0.biass\", which the file does not hold")), qPrintable(typo.error().message));

        WeightMap unknown = map;
        unknown.pairs.append({QStringLiteral("fc9.weight"), QStringLiteral("3.weight")});
        const Result<WeightImportPlan> refused = planWeightImport(model, file, request(unknown, false));
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().field, QStringLiteral("training.init_from.map.fc9.weight"));
        QVERIFY2(refused.error().message.contains(QStringLiteral("\"fc9.weight\", which is not a tensor of this network")), qPrintable(refused.error().message));
    }

    // Without a map the file must say Trainyard wrote it; "names" takes another tool's file whose names are the
    // network's; an unknown convention is refused, listing the known ones.
    void withoutMapTheFileMustBeTrainyards()
    {
        TensorFile file;
        for (const ModelTensor &t : network())
            file.tensors << fileTensor(t.name, QList<qint64>(t.shape.begin(), t.shape.end()));
        const Result<WeightImportPlan> refused = planWeightImport(network(), file, request(WeightMap()));
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.contains(QStringLiteral("not a Trainyard checkpoint or weights file")), qPrintable(refused.error().message));
        QVERIFY2(refused.error().message.contains(QStringLiteral("names, sequential, torchvision, auto")), qPrintable(refused.error().message));

        QCOMPARE(planWeightImport(network(), file, request(convention(QStringLiteral("names")))).value().copies.size(), size_t(8));
        file.metadata.insert(QStringLiteral("format"), QStringLiteral("trainyard-weights"));
        QCOMPARE(planWeightImport(network(), file, request(WeightMap())).value().report.map, QStringLiteral("none"));

        const Result<WeightImportPlan> unknown = planWeightImport(network(), file, request(convention(QStringLiteral("keras"))));
        QVERIFY(!unknown.ok());
        QVERIFY2(unknown.error().message.contains(QStringLiteral("map \"keras\" is not a convention Trainyard knows (names, sequential, torchvision, auto)")),
                 qPrintable(unknown.error().message));
    }

    // init_from.nodes chooses what loads with a map too: only those, each whole.
    void nodesChooseWhatLoads()
    {
        const QList<ModelTensor> model = network(5);
        const Result<WeightImportPlan> plan =
            planWeightImport(model, sequentialFile(4), request(convention(QStringLiteral("sequential")), true, {QStringLiteral("fc1"), QStringLiteral("bn1")}));
        QVERIFY2(plan.ok(), qPrintable(plan.error().toString()));
        QCOMPARE(plan.value().copiedNodes, (QStringList{QStringLiteral("fc1"), QStringLiteral("bn1")}));
        QCOMPARE(plan.value().report.missing.size(), 2);
        QCOMPARE(plan.value().report.missing.first().reason, QStringLiteral("not among init_from.nodes"));
    }

    // torch.save's zip archive and legacy pickle, and a .pt file of anything but safetensors, are refused by their
    // first bytes with the way to save a safetensors file; a safetensors file named .bin is read.
    void pickledFilesAreRefused()
    {
        const Status zip = refusePickledFile(QStringLiteral("model.pt"), QByteArray("PK\x03\x04\x14\x00\x00\x00\x08", 9));
        QVERIFY(!zip.ok());
        QVERIFY2(zip.error().message.startsWith(QLatin1String(kPickleRefusal)), qPrintable(zip.error().message));
        QVERIFY2(zip.error().message.contains(QStringLiteral("docs/import.md")), qPrintable(zip.error().message));
        QVERIFY(!refusePickledFile(QStringLiteral("weights.safetensors"), QByteArray("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9", 9)).ok());
        QVERIFY(!refusePickledFile(QStringLiteral("model.pth"), QByteArray("(dp0\nS'a'\n", 9)).ok());

        QTemporaryDir dir;
        const QString bin = dir.filePath(QStringLiteral("model.bin"));
        QVERIFY(writeFileAtomically(bin, encodeSafetensors(sequentialFile())).ok());
        QVERIFY(readSafetensorsHeader(bin).ok());
        const QString pickle = dir.filePath(QStringLiteral("model.pt"));
        QVERIFY(writeFileAtomically(pickle, QByteArray("PK\x03\x04", 4) + QByteArray(200, '\x01')).ok());
        const Result<TensorFile> refused = readSafetensors(pickle);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().file, pickle);
        QVERIFY2(refused.error().message.startsWith(QLatin1String(kPickleRefusal)), qPrintable(refused.error().message));
    }

    // validate finds from the plan what the run would refuse: a layer of another width, with the tensor's name;
    // and 0 epochs without init_from.
    void validationFindsTheSameProblems()
    {
        QTemporaryDir dir;
        const QString weights = dir.filePath(QStringLiteral("mlp.safetensors"));
        QVERIFY(writeFileAtomically(weights, encodeSafetensors(sequentialFile())).ok());
        Preset preset;
        preset.graph = tytest::graph({node(QStringLiteral("data"), QStringLiteral("dataset.synthetic"),
                                           {{QStringLiteral("classes"), 5}, {QStringLiteral("samples"), 40}, {QStringLiteral("test_samples"), 10}}),
                                      node(QStringLiteral("fc1"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 16}}),
                                      node(QStringLiteral("bn1"), QStringLiteral("layer.batchnorm1d")),
                                      node(QStringLiteral("relu"), QStringLiteral("layer.relu")),
                                      node(QStringLiteral("fc2"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 5}}),
                                      node(QStringLiteral("loss"), QStringLiteral("loss.cross_entropy")),
                                      node(QStringLiteral("opt"), QStringLiteral("optimizer.sgd"))},
                                     {{"data.features", "fc1.in"}, {"fc1.out", "bn1.in"}, {"bn1.out", "relu.in"}, {"relu.out", "fc2.in"},
                                      {"fc2.out", "loss.input"}, {"data.target", "loss.target"}, {"loss.loss", "opt.loss"}});
        preset.training = QJsonObject{{QStringLiteral("epochs"), 0},
                                      {QStringLiteral("init_from"), QJsonObject{{QStringLiteral("file"), weights}, {QStringLiteral("map"), QStringLiteral("sequential")}}}};
        const Issues issues = tytest::errorsOf(inspectPresetShapes(preset).issues);
        QCOMPARE(issues.size(), 1);
        QCOMPARE(issues.first().node, QStringLiteral("fc2"));
        QVERIFY2(issues.first().message.contains(QStringLiteral("fc2.weight is F32 [5, 16] here, but the file's 3.weight is F32 [4, 16] (mlp.safetensors)")),
                 qPrintable(tytest::dump(issues)));

        preset.graph.node(QStringLiteral("fc2"))->params.insert(QStringLiteral("out_features"), 4);
        preset.graph.node(QStringLiteral("data"))->params.insert(QStringLiteral("classes"), 4);
        QVERIFY2(tytest::errorsOf(inspectPresetShapes(preset).issues).isEmpty(), qPrintable(tytest::dump(inspectPresetShapes(preset).issues)));

        preset.training.remove(QStringLiteral("init_from"));
        const Issues noSource = tytest::errorsOf(inspectPresetShapes(preset).issues);
        QCOMPARE(noSource.size(), 1);
        QCOMPARE(noSource.first().param, QStringLiteral("training.epochs"));
        QVERIFY2(noSource.first().message.contains(QStringLiteral("0 epochs only evaluates weights loaded with training.init_from")),
                 qPrintable(tytest::dump(noSource)));
    }
};

TY_TEST_CLASS(TestWeightImport)
#include "test_weight_import.moc"
