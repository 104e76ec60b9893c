#include "weight_name_maps.h"

#include <QMap>
#include <QSet>

#include <algorithm>
#include <map>

namespace ty {

namespace {

const QString kMapField = QStringLiteral("training.init_from.map");

// "layer1.0.conv1.weight" -> {"layer1.0.conv1", "weight"}; a name without a dot is all leaf.
std::pair<QString, QString> splitTensorName(const QString &name)
{
    const int dot = name.lastIndexOf(QLatin1Char('.'));
    return dot < 0 ? std::make_pair(QString(), name) : std::make_pair(name.left(dot), name.mid(dot + 1));
}

bool isFloating(TensorDType dtype)
{
    return dtype == TensorDType::F64 || dtype == TensorDType::F32 || dtype == TensorDType::F16 || dtype == TensorDType::BF16;
}

// A file tensor a convention pairs at all: floating-point and not batch norm's count of batches.
bool isCandidate(const NamedTensor &t)
{
    return isFloating(t.dtype) && splitTensorName(t.name).second != QLatin1String("num_batches_tracked");
}

bool isIndex(const QString &component)
{
    bool ok = false;
    component.toLongLong(&ok);
    return ok && !component.startsWith(QLatin1Char('-')) && !component.startsWith(QLatin1Char('+'));
}

// Dotted names in natural order: numeric parts as numbers ("features.2" before "features.10").
bool naturalLess(const QString &a, const QString &b)
{
    const QStringList x = a.split(QLatin1Char('.')), y = b.split(QLatin1Char('.'));
    for (int i = 0; i < std::min(x.size(), y.size()); ++i) {
        if (x[i] == y[i])
            continue;
        if (isIndex(x[i]) && isIndex(y[i]))
            return x[i].toLongLong() < y[i].toLongLong();
        return x[i] < y[i];
    }
    return x.size() < y.size();
}

QString ordinal(int n)
{
    const int tens = n % 100;
    const char *suffix = (tens >= 11 && tens <= 13) ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
    return QString::number(n) + QLatin1String(suffix);
}

// The network's layers in its order, each with its tensors' indices.
QList<std::pair<QString, QList<int>>> layersOf(const QList<ModelTensor> &model)
{
    QList<std::pair<QString, QList<int>>> layers;
    QHash<QString, int> at;
    for (int i = 0; i < model.size(); ++i) {
        auto found = at.find(model[i].layer);
        if (found == at.end()) {
            found = at.insert(model[i].layer, int(layers.size()));
            layers.append({model[i].layer, {}});
        }
        layers[*found].second.append(i);
    }
    return layers;
}

NamePairing emptyPairing(const QList<ModelTensor> &model)
{
    NamePairing pairing;
    pairing.source.assign(size_t(model.size()), -1);
    for (int i = 0; i < model.size(); ++i)
        pairing.missingReason << QString();
    return pairing;
}

Result<NamePairing> namesRule(const QList<ModelTensor> &model, const TensorFile &file)
{
    return sameNamePairing(model, file);
}

// PyTorch's nn.Sequential names a layer's tensors by its index: "0.weight", "3.bias", and inside a module that holds
// the sequence "net.0.weight". The file's layers in index order go to the network's layers with tensors in graph
// order; the indices of layers without tensors (ReLU, Flatten) are simply absent from the file.
Result<NamePairing> sequentialRule(const QList<ModelTensor> &model, const TensorFile &file)
{
    struct Group {
        QList<qint64> indices;
        QString text;             // "3", "net.3"
        QList<int> tensors;       // into file.tensors
    };
    std::map<QList<qint64>, Group> groups;
    QString head;
    QString firstName;
    for (int i = 0; i < file.tensors.size(); ++i) {
        const NamedTensor &t = file.tensors[i];
        if (!isCandidate(t))
            continue;
        const QString prefix = splitTensorName(t.name).first;
        QStringList components = prefix.isEmpty() ? QStringList() : prefix.split(QLatin1Char('.'));
        QStringList headParts;
        while (!components.isEmpty() && !isIndex(components.first()))
            headParts << components.takeFirst();
        const bool allIndices = !components.isEmpty() && std::all_of(components.cbegin(), components.cend(), isIndex);
        if (!allIndices)
            return Error::atField(kMapField, QStringLiteral("map \"sequential\": the file holds \"%1\", which is not a name nn.Sequential "
                                                            "gives a tensor (INDEX.NAME such as 0.weight, or net.3.bias); use \"auto\" "
                                                            "or an explicit map").arg(t.name));
        const QString thisHead = headParts.join(QLatin1Char('.'));
        if (firstName.isEmpty()) {
            head = thisHead;
            firstName = t.name;
        } else if (thisHead != head) {
            return Error::atField(kMapField, QStringLiteral("map \"sequential\": the file holds \"%1\" and \"%2\", tensors of two different "
                                                            "sequences; use an explicit map").arg(firstName, t.name));
        }
        QList<qint64> indices;
        for (const QString &c : components)
            indices << c.toLongLong();
        Group &group = groups[indices];
        group.indices = indices;
        group.text = prefix;
        group.tensors << i;
    }
    std::vector<Group> ordered;  // by index
    for (auto &[indices, group] : groups)
        ordered.push_back(group);
    NamePairing pairing = emptyPairing(model);
    const QList<std::pair<QString, QList<int>>> layers = layersOf(model);
    const auto layerName = [&](int k) { return QString(layers[k].first).replace(QLatin1Char('/'), QLatin1Char('.')); };
    for (int k = 0; k < layers.size(); ++k) {
        const QList<int> &tensors = layers[k].second;
        if (size_t(k) >= ordered.size()) {
            for (int m : tensors)
                pairing.missingReason[m] = QStringLiteral("the file's sequence has %1 layers with tensors; %2 is the network's %3")
                                               .arg(ordered.size()).arg(layerName(k), ordinal(k + 1));
            continue;
        }
        const Group &group = ordered[size_t(k)];
        QSet<int> taken;
        for (int m : tensors) {
            for (int f : group.tensors)
                if (splitTensorName(file.tensors[f].name).second == model[m].leaf) {
                    pairing.source[size_t(m)] = f;
                    taken.insert(f);
                }
            if (pairing.source[size_t(m)] < 0)
                pairing.missingReason[m] = QStringLiteral("the file's layer %1, the sequence's %2 with tensors, has no \"%3\"")
                                               .arg(group.text, ordinal(k + 1), model[m].leaf);
        }
        for (int f : group.tensors)
            if (!taken.contains(f))
                pairing.skippedReason.insert(f, QStringLiteral("layer %1 of this network has no tensor \"%2\"")
                                                    .arg(layerName(k), splitTensorName(file.tensors[f].name).second));
    }
    for (size_t g = size_t(layers.size()); g < ordered.size(); ++g)
        for (int f : ordered[g].tensors)
            pairing.skippedReason.insert(f, QStringLiteral("the network has %1 layers with tensors; the file's layer %2 is past them")
                                                .arg(layers.size()).arg(ordered[g].text));
    return pairing;
}

// The names and shapes of a group of tensors, sorted by name: "bias [16], weight [16, 8]".
QString signatureOf(QList<std::pair<QString, SampleShape>> tensors)
{
    std::sort(tensors.begin(), tensors.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    QStringList parts;
    for (const auto &[leaf, shape] : tensors)
        parts << leaf + QLatin1Char(' ') + shapeText(shape);
    return parts.join(QStringLiteral(", "));
}

SampleShape sampleShapeOf(const NamedTensor &t)
{
    return SampleShape(t.shape.cbegin(), t.shape.cend());
}

// Layers and the file's groups of tensors (by name up to the last dot) paired by their tensors' names and shapes;
// several of one kind in order (the network's graph order, the file's names in natural order). Where the file has a
// different number of groups of a kind than the network has layers, which goes where is ambiguous: an error.
Result<NamePairing> autoRule(const QList<ModelTensor> &model, const TensorFile &file)
{
    QMap<QString, QList<int>> fileGroups;  // prefix -> tensors
    for (int i = 0; i < file.tensors.size(); ++i)
        if (isCandidate(file.tensors[i]))
            fileGroups[splitTensorName(file.tensors[i].name).first] << i;
    QStringList prefixes = fileGroups.keys();
    std::sort(prefixes.begin(), prefixes.end(), naturalLess);
    // Kind (signature) -> the file's groups and the network's layers of that kind, each in order.
    QMap<QString, QStringList> groupsOfKind;
    for (const QString &prefix : prefixes) {
        QList<std::pair<QString, SampleShape>> tensors;
        for (int f : fileGroups[prefix])
            tensors.append({splitTensorName(file.tensors[f].name).second, sampleShapeOf(file.tensors[f])});
        groupsOfKind[signatureOf(tensors)] << prefix;
    }
    const QList<std::pair<QString, QList<int>>> layers = layersOf(model);
    QMap<QString, QList<int>> layersOfKind;  // into `layers`
    QStringList kinds;                       // in the network's order
    for (int k = 0; k < layers.size(); ++k) {
        QList<std::pair<QString, SampleShape>> tensors;
        for (int m : layers[k].second)
            tensors.append({model[m].leaf, model[m].shape});
        const QString kind = signatureOf(tensors);
        if (!layersOfKind.contains(kind))
            kinds << kind;
        layersOfKind[kind] << k;
    }
    NamePairing pairing = emptyPairing(model);
    const auto layerName = [&](int k) { return QString(layers[k].first).replace(QLatin1Char('/'), QLatin1Char('.')); };
    for (const QString &kind : kinds) {
        const QList<int> &ofKind = layersOfKind[kind];
        const QStringList groups = groupsOfKind.value(kind);
        if (groups.isEmpty()) {
            for (int k : ofKind)
                for (int m : layers[k].second)
                    pairing.missingReason[m] = QStringLiteral("no group of tensors in the file has this layer's names and shapes (%1)").arg(kind);
            continue;
        }
        if (groups.size() != ofKind.size()) {
            QStringList names;
            for (int k : ofKind)
                names << layerName(k);
            return Error::atField(kMapField, QStringLiteral("map \"auto\" is ambiguous: the file has %1 groups of tensors (%2) with the "
                                                            "names and shapes of %3 layers of this network (%4: %5), so which goes where "
                                                            "cannot be told; give an explicit map, or \"sequential\" for an nn.Sequential")
                                                 .arg(groups.size()).arg(groups.join(QStringLiteral(", "))).arg(ofKind.size())
                                                 .arg(names.join(QStringLiteral(", ")), kind));
        }
        for (int i = 0; i < ofKind.size(); ++i)
            for (int m : layers[ofKind[i]].second)
                for (int f : fileGroups[groups[i]])
                    if (splitTensorName(file.tensors[f].name).second == model[m].leaf)
                        pairing.source[size_t(m)] = f;
    }
    for (auto it = groupsOfKind.constBegin(); it != groupsOfKind.constEnd(); ++it)
        if (!layersOfKind.contains(it.key()))
            for (const QString &prefix : it.value())
                for (int f : fileGroups[prefix])
                    pairing.skippedReason.insert(f, QStringLiteral("no layer of this network has the names and shapes of %1 (%2)")
                                                        .arg(prefix.isEmpty() ? QStringLiteral("this group") : prefix, it.key()));
    return pairing;
}

// torchvision's name of a network tensor: each "_N" in a node id is ".N" (layer1_0 is layer1.0, conv_1_0 is conv.1.0,
// features_18_0 is features.18.0), as a node id cannot be a number.
QString torchvisionName(const QString &name)
{
    QStringList components = name.split(QLatin1Char('.'));
    for (QString &component : components) {
        const QStringList parts = component.split(QLatin1Char('_'));
        QString joined = parts.first();
        for (int i = 1; i < parts.size(); ++i)
            joined += (isIndex(parts[i]) ? QLatin1Char('.') : QLatin1Char('_')) + parts[i];
        component = joined;
    }
    return components.join(QLatin1Char('.'));
}

// torchvision's models (torchvision.models.resnet18(...).state_dict()): the network's names as torchvisionName gives
// them. A network inside one composite node (the bundled model library's `resnet18` node) is looked up without that
// node's id, unless the file's names start with it too.
Result<NamePairing> torchvisionRule(const QList<ModelTensor> &model, const TensorFile &file)
{
    QHash<QString, int> byName;
    for (int i = 0; i < file.tensors.size(); ++i)
        byName.insert(file.tensors[i].name, i);
    QString wrapper = model.isEmpty() ? QString() : model.first().name.section(QLatin1Char('.'), 0, 0) + QLatin1Char('.');
    for (const ModelTensor &t : model)
        if (!t.name.startsWith(wrapper) || t.name.count(QLatin1Char('.')) < 2)
            wrapper.clear();
    for (const NamedTensor &t : file.tensors)
        if (!wrapper.isEmpty() && t.name.startsWith(torchvisionName(wrapper.chopped(1)) + QLatin1Char('.')))
            wrapper.clear();
    NamePairing pairing = emptyPairing(model);
    for (int m = 0; m < model.size(); ++m) {
        const QString name = torchvisionName(model[m].name.mid(int(wrapper.size())));
        pairing.source[size_t(m)] = byName.value(name, -1);
        if (pairing.source[size_t(m)] < 0)
            pairing.missingReason[m] = QStringLiteral("the file has no \"%1\" (torchvision's name of this tensor)").arg(name);
    }
    return pairing;
}

} // namespace

const QList<NameConvention> &nameConventions()
{
    static const QList<NameConvention> conventions{
        {QStringLiteral("names"), QStringLiteral("the file names its tensors as Trainyard does (fc1.weight, layer1.0.conv1.weight)"), namesRule},
        {QStringLiteral("sequential"), QStringLiteral("PyTorch's nn.Sequential (0.weight, 3.bias): the file's layers in index order are "
                                                      "the network's layers with weights in graph order"), sequentialRule},
        {QStringLiteral("torchvision"), QStringLiteral("torchvision's models (layer1.0.conv1.weight, features.18.0.weight): a node id's "
                                                       "_N is .N (layer1_0, features_18_0), and a network inside one composite node "
                                                       "is named without it"), torchvisionRule},
        {QStringLiteral("auto"), QStringLiteral("by order and shape: the file's groups of tensors go to the layers with the same "
                                                "tensor names and shapes, in order; ambiguity is an error"), autoRule},
    };
    return conventions;
}

const NameConvention *findNameConvention(const QString &name)
{
    for (const NameConvention &convention : nameConventions())
        if (convention.name == name)
            return &convention;
    return nullptr;
}

QString nameConventionList()
{
    QStringList names;
    for (const NameConvention &convention : nameConventions())
        names << convention.name;
    return names.join(QStringLiteral(", "));
}

NamePairing sameNamePairing(const QList<ModelTensor> &model, const TensorFile &file)
{
    QHash<QString, int> byName;
    for (int i = 0; i < file.tensors.size(); ++i)
        byName.insert(file.tensors[i].name, i);
    NamePairing pairing = emptyPairing(model);
    for (int m = 0; m < model.size(); ++m) {
        pairing.source[size_t(m)] = byName.value(model[m].name, -1);
        if (pairing.source[size_t(m)] < 0)
            pairing.missingReason[m] = QStringLiteral("not in the file");
    }
    return pairing;
}

Result<NamePairing> explicitPairing(const QList<QPair<QString, QString>> &pairs, const QList<ModelTensor> &model,
                                    const TensorFile &file)
{
    QHash<QString, int> inModel, inFile;
    for (int i = 0; i < model.size(); ++i)
        inModel.insert(model[i].name, i);
    for (int i = 0; i < file.tensors.size(); ++i)
        inFile.insert(file.tensors[i].name, i);
    NamePairing pairing = emptyPairing(model);
    for (int m = 0; m < model.size(); ++m)
        pairing.missingReason[m] = QStringLiteral("not in the map");
    for (const auto &[network, fileName] : pairs) {
        const int m = inModel.value(network, -1);
        if (m < 0) {
            QStringList names;
            for (const ModelTensor &t : model)
                names << t.name;
            return Error::atField(kMapField + QLatin1Char('.') + network.left(60),
                                  QStringLiteral("map names \"%1\", which is not a tensor of this network that weights load into "
                                                 "(those are: %2)").arg(network, names.mid(0, 12).join(QStringLiteral(", ")) +
                                                                               (names.size() > 12 ? QStringLiteral(", ...") : QString())));
        }
        pairing.source[size_t(m)] = inFile.value(fileName, -1);
        if (pairing.source[size_t(m)] < 0)
            pairing.missingReason[m] = QStringLiteral("the map names \"%1\", which the file does not hold").arg(fileName);
    }
    return pairing;
}

} // namespace ty
