#include "graph_fragment.h"

#include "preset_format.h"

#include <QHash>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QMimeData>
#include <QRegularExpression>
#include <QSet>

namespace ty {

namespace {
Error clipboardError(const QString &message)
{
    return Error(message);
}
} // namespace

PipelineGraph fragmentOf(const PipelineGraph &graph, const QStringList &nodeIds)
{
    const QSet<QString> wanted(nodeIds.begin(), nodeIds.end());
    PipelineGraph fragment;
    for (const Node &node : graph.nodes)
        if (wanted.contains(node.id))
            fragment.nodes.append(node);
    for (const Edge &edge : graph.edges)
        if (wanted.contains(edge.from.node) && wanted.contains(edge.to.node))
            fragment.edges.append(edge);
    return fragment;
}

QByteArray fragmentToJson(const PipelineGraph &fragment)
{
    Preset preset;
    preset.graph = fragment;
    return QJsonDocument(presetToJson(preset)).toJson(QJsonDocument::Indented);
}

Result<PipelineGraph> fragmentFromJson(const QByteArray &json)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject())
        return clipboardError(QObject::tr("the clipboard holds no Trainyard nodes"));
    Result<Preset> preset = presetFromJson(doc.object(), QObject::tr("clipboard"));
    if (!preset)
        return preset.error();
    return preset.value().graph;
}

QMimeData *fragmentMimeData(const PipelineGraph &fragment)
{
    auto *mime = new QMimeData;
    const QByteArray json = fragmentToJson(fragment);
    mime->setData(QString::fromLatin1(kPresetMimeType), json);
    mime->setText(QString::fromUtf8(json));
    return mime;
}

Result<PipelineGraph> fragmentFromMimeData(const QMimeData *mime)
{
    if (!mime)
        return clipboardError(QObject::tr("the clipboard is empty"));
    if (mime->hasFormat(QString::fromLatin1(kPresetMimeType)))
        return fragmentFromJson(mime->data(QString::fromLatin1(kPresetMimeType)));
    if (mime->hasText())
        return fragmentFromJson(mime->text().toUtf8());
    return clipboardError(QObject::tr("the clipboard holds no Trainyard nodes"));
}

PipelineGraph freshFragment(const PipelineGraph &fragment, const PipelineGraph &target, const QPointF &offset)
{
    static const QRegularExpression trailingDigits(QStringLiteral("\\d+$"));
    PipelineGraph taken = target;  // grows with every id handed out, so the new ids are unique among themselves
    QHash<QString, QString> renamed;
    PipelineGraph out;
    for (Node node : fragment.nodes) {
        QString id = node.id;
        if (taken.node(id) || !isValidNodeId(id)) {
            QString base = id;
            base.remove(trailingDigits);
            if (!isValidNodeId(base))
                base = QStringLiteral("node");
            id = taken.uniqueId(base);
        }
        renamed.insert(node.id, id);
        node.id = id;
        node.pos += offset;
        out.nodes.append(node);
        taken.nodes.append(Node{id, QString(), {}, {}});
    }
    for (Edge edge : fragment.edges) {
        if (!renamed.contains(edge.from.node) || !renamed.contains(edge.to.node))
            continue;
        edge.from.node = renamed.value(edge.from.node);
        edge.to.node = renamed.value(edge.to.node);
        out.edges.append(edge);
    }
    return out;
}

} // namespace ty
