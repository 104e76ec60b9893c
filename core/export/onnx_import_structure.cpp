// The imported layers as the preset's network: named and grouped by the module scopes of their ONNX node names
// (torch writes "/layer1/layer1.0/conv1/Conv": module layer1.0 of module layer1, its child conv1), each group a
// composite block, equal groups sharing one (the parameters in which they differ exposed), and the weights named by
// the layers' paths. A sequence (nn.Sequential: children named by numbers) is no block of its own: its children
// join its parent as the model library names them, "layer1_0" for layer1.0, so that map "torchvision" reads
// layer1_0.conv1.weight as torchvision's layer1.0.conv1.weight.

#include "block_registry.h"
#include "onnx_import.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>

namespace ty {

namespace {

// The module scopes of a node name written as torch writes them ("/layer1/layer1.0/conv1/Conv"); none otherwise.
QStringList scopesOf(const QString &onnxNode)
{
    if (!onnxNode.startsWith(QLatin1Char('/')))
        return {};
    QStringList parts = onnxNode.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    if (!parts.isEmpty())
        parts.removeLast();
    return parts;
}

// torch names a child scope by its parent's name and its own ("layer1.0" in "layer1"); the child's own part.
QString relativeName(const QString &child, const QString &parent)
{
    return !parent.isEmpty() && child.startsWith(parent + QLatin1Char('.')) ? child.mid(parent.size() + 1) : child;
}

// An identifier from `raw`: other characters become '_', a name that does not start with a letter gets `prefix`
// ("2" -> "conv2", but "relu6_2", not "relu62").
QString identifier(const QString &raw, const QString &prefix)
{
    QString id;
    for (const QChar ch : raw)
        id += (ch.isLetterOrNumber() && ch.unicode() < 128) || ch == QLatin1Char('_') ? ch : QLatin1Char('_');
    if (id.isEmpty())
        return prefix;
    if (!id.at(0).isLetter())
        id = prefix + (id.at(0).isDigit() && !(prefix.size() > 0 && prefix.back().isDigit()) ? id : QLatin1Char('_') + id);
    return id;
}

QString uniqueIn(QSet<QString> *taken, const QString &base)
{
    QString id = base;
    for (int n = 2; taken->contains(id); ++n)
        id = QStringLiteral("%1_%2").arg(base).arg(n);
    taken->insert(id);
    return id;
}

QString opName(const QString &block)
{
    const BlockDescriptor *d = BlockRegistry::builtin().find(block);
    return d && !d->nodeIdPrefix.isEmpty() ? d->nodeIdPrefix : block.section(QLatin1Char('.'), 1).section(QLatin1Char('_'), 0, 0);
}

QStringList portsOf(const ImportedLayer &layer)
{
    if (layer.inputs.size() == 1)
        return {QStringLiteral("in")};
    static const QStringList joining{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d"),
                                     QStringLiteral("e"), QStringLiteral("f"), QStringLiteral("g"), QStringLiteral("h")};
    return joining.mid(0, int(layer.inputs.size()));
}

QString portName(const char *base, int index) { return index == 0 ? QString::fromLatin1(base) : QStringLiteral("%1%2").arg(QLatin1String(base)).arg(index); }

QJsonArray position(int index) { return QJsonArray{40 + (index % 5) * 220, 40 + (index / 5) * 140}; }

struct Item {
    int layer = -1;
    int group = -1;
    QString raw;  // its name in its parent, as the scopes give it (empty: none)
};

struct Group {
    QString module;  // the dotted module path: "layer1.0"
    QList<Item> children;
};

// A built child of a container: how its parent's graph sees it.
struct Built {
    QString id;
    QJsonObject node;  // {"id", "block", "params"}
    QList<QPair<QString, QString>> inputs;   // port, value read
    QList<QPair<QString, QString>> outputs;  // port, value produced
};

class Structurer {
public:
    Structurer(const QList<ImportedLayer> &layers, const QString &output) : m_layers(layers), m_output(output)
    {
        for (int i = 0; i < layers.size(); ++i)
            for (const QString &v : layers[i].inputs)
                m_readers[v] << i;
    }

    ImportedNetwork run(const QString &input, const QString &inputEndpoint)
    {
        QList<Item> top = buildTree();
        ImportedNetwork net;
        QSet<QString> taken{QStringLiteral("data"), QStringLiteral("loss"), QStringLiteral("accuracy"), QStringLiteral("opt")};
        const QList<Built> built = buildChildren(expandSequences(top), QString(), &taken);
        QHash<QString, QString> producer;  // value -> "id.port"
        for (const Built &b : built)
            for (const auto &[port, value] : b.outputs)
                producer.insert(value, b.id + QLatin1Char('.') + port);
        for (int i = 0; i < built.size(); ++i) {
            QJsonObject node = built[i].node;
            node.insert(QStringLiteral("pos"), position(i + 1));
            net.nodes.append(node);
            for (const auto &[port, value] : built[i].inputs) {
                const QString from = value == input ? inputEndpoint : producer.value(value);
                net.edges.append(QJsonObject{{QStringLiteral("from"), from}, {QStringLiteral("to"), built[i].id + QLatin1Char('.') + port}});
            }
        }
        net.outputEndpoint = producer.value(m_output);
        net.blocks = m_definitions;
        for (auto it = m_uses.constBegin(); it != m_uses.constEnd(); ++it)
            net.composites << QStringLiteral("%1 (%2)").arg(it.key(), it.value().join(QStringLiteral(", ")));
        net.topNodes = int(built.size());
        for (int i = 0; i < m_layers.size(); ++i)
            for (const OnnxTensor &w : m_layers[i].weights) {
                NamedTensor t;
                t.name = m_paths.value(i) + QLatin1Char('.') + w.name;
                t.dtype = TensorDType::F32;
                for (const qint64 d : w.dims)
                    t.shape << d;
                t.data = QByteArray(reinterpret_cast<const char *>(w.floats.data()), qsizetype(w.floats.size() * sizeof(float)));
                net.weights << t;
            }
        return net;
    }

private:
    QList<Item> buildTree()
    {
        QSet<QString> groupKeys;
        QList<QStringList> scopes;
        for (const ImportedLayer &layer : m_layers) {
            scopes << scopesOf(layer.onnxNode);
            for (int k = 0; k + 1 < scopes.last().size(); ++k)
                groupKeys.insert(scopes.last().mid(0, k + 1).join(QLatin1Char('/')));
        }
        QList<Item> top;
        QHash<QString, int> groupOf;
        // The group of the scopes S[0..k], created with its parents on first use.
        std::function<int(const QStringList &, int)> ensure = [&](const QStringList &s, int k) -> int {
            const QString key = s.mid(0, k + 1).join(QLatin1Char('/'));
            if (const auto it = groupOf.constFind(key); it != groupOf.constEnd())
                return it.value();
            const int parent = k > 0 ? ensure(s, k - 1) : -1;
            const QString raw = k > 0 ? relativeName(s[k], s[k - 1]) : s[k];
            m_groups.append(Group{parent >= 0 ? m_groups[parent].module + QLatin1Char('.') + raw : raw, {}});
            const int index = int(m_groups.size()) - 1;
            groupOf.insert(key, index);
            (parent >= 0 ? m_groups[parent].children : top).append(Item{-1, index, raw});
            return index;
        };
        for (int i = 0; i < m_layers.size(); ++i) {
            const QStringList &s = scopes[i];
            int parent = -1;
            QString raw;
            if (!s.isEmpty() && groupKeys.contains(s.join(QLatin1Char('/')))) {
                parent = ensure(s, int(s.size()) - 1);
            } else if (s.size() >= 2) {
                parent = ensure(s, int(s.size()) - 2);
                raw = relativeName(s.last(), s[s.size() - 2]);
            } else {
                raw = s.value(0);
            }
            (parent >= 0 ? m_groups[parent].children : top).append(Item{i, -1, raw});
        }
        return top;
    }

    // A sequence is its children, named "<sequence>_<number>" (a sequence in a sequence: "features_0_2").
    QList<Item> expandSequences(const QList<Item> &items) const
    {
        QList<Item> out;
        for (const Item &item : items) {
            if (item.group < 0 || !isSequence(m_groups[item.group])) {
                out << item;
                continue;
            }
            QList<Item> children = m_groups[item.group].children;
            for (Item &child : children)
                child.raw = item.raw + QLatin1Char('_') + child.raw;
            out << expandSequences(children);
        }
        return out;
    }

    static bool isSequence(const Group &group)
    {
        return std::all_of(group.children.cbegin(), group.children.cend(), [](const Item &child) {
            bool number = false;
            child.raw.toUInt(&number);
            return number && child.raw.at(0).isDigit();
        });
    }

    void collectLayers(const Item &item, QSet<int> *into) const
    {
        if (item.layer >= 0)
            into->insert(item.layer);
        else
            for (const Item &child : m_groups[item.group].children)
                collectLayers(child, into);
    }

    QList<Built> buildChildren(const QList<Item> &items, const QString &pathPrefix, QSet<QString> *taken)
    {
        QList<Built> built;
        for (const Item &item : items) {
            Built b;
            if (item.layer >= 0) {
                const ImportedLayer &layer = m_layers[item.layer];
                const QString op = opName(layer.block);
                b.id = uniqueIn(taken, item.raw.isEmpty() ? op : identifier(item.raw, op));  // module "2": "conv2", "relu6_2"
                b.node = QJsonObject{{QStringLiteral("id"), b.id}, {QStringLiteral("block"), layer.block}};
                if (!layer.params.isEmpty())
                    b.node.insert(QStringLiteral("params"), layer.params);
                const QStringList ports = portsOf(layer);
                for (int p = 0; p < ports.size(); ++p)
                    b.inputs << qMakePair(ports[p], layer.inputs[p]);
                b.outputs << qMakePair(QStringLiteral("out"), layer.output);
                m_paths.insert(item.layer, pathPrefix + b.id);
            } else {
                b.id = uniqueIn(taken, identifier(item.raw, QStringLiteral("block")));
                buildGroup(item, pathPrefix + b.id, &b);
            }
            built << b;
        }
        return built;
    }

    // The composite of one group: its inner graph, ports and definition (shared with an equal group's).
    void buildGroup(const Item &item, const QString &path, Built *use)
    {
        const Group &group = m_groups[item.group];
        QSet<QString> innerTaken;
        const QList<Built> children = buildChildren(expandSequences(group.children), path + QLatin1Char('.'), &innerTaken);
        QSet<int> inside;
        collectLayers(item, &inside);

        QHash<QString, QString> producer;
        for (const Built &b : children)
            for (const auto &[port, value] : b.outputs)
                producer.insert(value, b.id + QLatin1Char('.') + port);
        QJsonArray nodes, edges;
        QJsonObject inputs, outputs;
        QHash<QString, QString> inputPortOf;  // external value -> port
        for (int i = 0; i < children.size(); ++i) {
            QJsonObject node = children[i].node;
            node.insert(QStringLiteral("pos"), position(i));
            nodes.append(node);
            for (const auto &[port, value] : children[i].inputs) {
                const QString to = children[i].id + QLatin1Char('.') + port;
                if (producer.contains(value)) {
                    edges.append(QJsonObject{{QStringLiteral("from"), producer.value(value)}, {QStringLiteral("to"), to}});
                    continue;
                }
                if (!inputPortOf.contains(value)) {
                    const QString name = portName("in", int(inputPortOf.size()));
                    inputPortOf.insert(value, name);
                    use->inputs << qMakePair(name, value);
                }
                const QString name = inputPortOf.value(value);
                QJsonArray targets = inputs.value(name).isArray() ? inputs.value(name).toArray()
                                                                  : (inputs.contains(name) ? QJsonArray{inputs.value(name)} : QJsonArray{});
                targets.append(to);
                inputs.insert(name, targets.size() == 1 ? targets.first() : QJsonValue(targets));
            }
        }
        for (const int layer : sortedLayers(inside)) {
            const QString value = m_layers[layer].output;
            bool readOutside = value == m_output;
            for (const int reader : m_readers.value(value))
                readOutside = readOutside || !inside.contains(reader);
            if (!readOutside || !producer.contains(value))
                continue;
            const QString name = portName("out", int(outputs.size()));
            outputs.insert(name, producer.value(value));
            use->outputs << qMakePair(name, value);
        }
        QJsonObject definition{{QStringLiteral("inputs"), inputs}, {QStringLiteral("outputs"), outputs},
                               {QStringLiteral("nodes"), nodes}, {QStringLiteral("edges"), edges}};
        const QString name = shareDefinition(definition, group.module, use);
        use->node = QJsonObject{{QStringLiteral("id"), use->id}, {QStringLiteral("block"), name}};
        if (!use->node.contains(QStringLiteral("params")) && !m_useParams.isEmpty())
            use->node.insert(QStringLiteral("params"), m_useParams);
        m_uses[name] << path;
    }

    static QList<int> sortedLayers(const QSet<int> &set)
    {
        QList<int> list(set.begin(), set.end());
        std::sort(list.begin(), list.end());
        return list;
    }

    // The structure of a definition without its parameter values.
    static QByteArray structureKey(QJsonObject definition)
    {
        QJsonArray nodes;
        for (const QJsonValue &n : definition.value(QStringLiteral("nodes")).toArray()) {
            QJsonObject node = n.toObject();
            node.remove(QStringLiteral("params"));
            node.remove(QStringLiteral("pos"));
            nodes.append(node);
        }
        definition.insert(QStringLiteral("nodes"), nodes);
        definition.remove(QStringLiteral("params"));
        definition.remove(QStringLiteral("description"));
        return QJsonDocument(definition).toJson(QJsonDocument::Compact);
    }

    // The spec (as a definition's `params` entry) of parameter `param` of a node of `block`.
    QJsonObject specOf(const QString &block, const QString &param) const
    {
        if (m_definitions.contains(block)) {
            QJsonObject spec = m_definitions.value(block).toObject().value(QStringLiteral("params")).toObject().value(param).toObject();
            spec.remove(QStringLiteral("bind"));
            return spec;
        }
        const BlockDescriptor *d = BlockRegistry::builtin().find(block);
        const ParamSpec *spec = d ? d->param(param) : nullptr;
        if (!spec)
            return {};
        QJsonObject o = spec->toJson();
        o.remove(QStringLiteral("name"));
        o.remove(QStringLiteral("names_metric"));
        if (spec->type == ParamType::FloatList)
            o.insert(QStringLiteral("type"), QStringLiteral("float_list"));
        if (o.value(QStringLiteral("doc")).toString().isEmpty())
            o.remove(QStringLiteral("doc"));
        return o;
    }

    QJsonValue effective(const QJsonObject &node, const QString &param) const
    {
        const QJsonObject params = node.value(QStringLiteral("params")).toObject();
        if (params.contains(param))
            return params.value(param);
        return specOf(node.value(QStringLiteral("block")).toString(), param).value(QStringLiteral("default"));
    }

    // The name of the definition `definition` is (an earlier equal one, with the parameters in which this use differs
    // exposed, or a new one); this use's values of exposed parameters are left in m_useParams.
    QString shareDefinition(const QJsonObject &definition, const QString &module, const Built *)
    {
        m_useParams = QJsonObject();
        const QByteArray key = structureKey(definition);
        for (const QString &name : m_byStructure.values(key)) {
            QJsonObject shared = m_definitions.value(name).toObject();
            QJsonObject exposed = shared.value(QStringLiteral("params")).toObject();
            QJsonArray sharedNodes = shared.value(QStringLiteral("nodes")).toArray();
            const QJsonArray nodes = definition.value(QStringLiteral("nodes")).toArray();
            QJsonObject useParams;
            bool ok = true;
            for (int i = 0; i < nodes.size() && ok; ++i) {
                const QJsonObject mine = nodes[i].toObject(), theirs = sharedNodes[i].toObject();
                const QString id = mine.value(QStringLiteral("id")).toString(), block = mine.value(QStringLiteral("block")).toString();
                QSet<QString> params;
                for (const QJsonObject &n : {mine, theirs})
                    for (const QString &p : n.value(QStringLiteral("params")).toObject().keys())
                        params.insert(p);
                QStringList sortedParams(params.begin(), params.end());
                std::sort(sortedParams.begin(), sortedParams.end());
                for (const QString &p : sortedParams) {
                    const QJsonValue value = effective(mine, p);
                    QString bound;
                    for (auto it = exposed.constBegin(); it != exposed.constEnd(); ++it)
                        if (it.value().toObject().value(QStringLiteral("bind")).toArray().contains(id + QLatin1Char('.') + p))
                            bound = it.key();
                    if (!bound.isEmpty()) {
                        if (value != exposed.value(bound).toObject().value(QStringLiteral("default")))
                            useParams.insert(bound, value);
                        continue;
                    }
                    if (value == effective(theirs, p))
                        continue;
                    QJsonObject spec = specOf(block, p);
                    if (spec.isEmpty()) {
                        ok = false;
                        break;
                    }
                    spec.insert(QStringLiteral("default"), effective(theirs, p));
                    spec.insert(QStringLiteral("bind"), QJsonArray{id + QLatin1Char('.') + p});
                    const QStringList keys = exposed.keys();
                    QSet<QString> names(keys.begin(), keys.end());
                    const QString exposedName = uniqueIn(&names, identifier(id + QLatin1Char('_') + p, QStringLiteral("p")));
                    exposed.insert(exposedName, spec);
                    useParams.insert(exposedName, value);
                }
            }
            if (!ok)
                continue;
            shared.insert(QStringLiteral("params"), exposed);
            m_definitions.insert(name, shared);
            m_useParams = useParams;
            return name;
        }
        const QStringList keys = m_definitions.keys();
        QSet<QString> names(keys.begin(), keys.end());
        const QString name = uniqueIn(&names, identifier(module, QStringLiteral("block")));
        QJsonObject fresh = definition;
        fresh.insert(QStringLiteral("description"), QStringLiteral("Imported from ONNX: module %1").arg(module));
        m_definitions.insert(name, fresh);
        m_byStructure.insert(key, name);
        return name;
    }

    const QList<ImportedLayer> &m_layers;
    const QString m_output;
    QHash<QString, QList<int>> m_readers;
    QList<Group> m_groups;
    QHash<int, QString> m_paths;
    QJsonObject m_definitions;
    QMultiHash<QByteArray, QString> m_byStructure;
    QMap<QString, QStringList> m_uses;
    QJsonObject m_useParams;
};

} // namespace

ImportedNetwork structureImportedNetwork(const QList<ImportedLayer> &layers, const QString &input, const QString &inputEndpoint, const QString &output)
{
    return Structurer(layers, output).run(input, inputEndpoint);
}

} // namespace ty
