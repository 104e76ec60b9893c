#include "preset_overlay.h"

#include "json_io.h"
#include "preset_format.h"
#include "sha256.h"

#include <QFileInfo>
#include <QJsonArray>

namespace ty {

QJsonValue mergePatch(const QJsonValue &target, const QJsonValue &patch)
{
    if (!patch.isObject())
        return patch;
    QJsonObject result = target.isObject() ? target.toObject() : QJsonObject();
    const QJsonObject members = patch.toObject();
    for (auto it = members.begin(); it != members.end(); ++it) {
        if (it.value().isNull())
            result.remove(it.key());
        else
            result.insert(it.key(), mergePatch(result.value(it.key()), it.value()));
    }
    return result;
}

namespace {

// The node list with an overlay's {id: patch} members merged in; removed nodes' ids go to `removed`.
Result<QJsonArray> mergeNodesById(const QJsonArray &nodes, const QJsonObject &byId, const QString &overlayFile,
                                  QStringList *removed)
{
    QJsonArray result;
    QStringList seen;
    for (const QJsonValue &value : nodes) {
        const QJsonObject node = value.toObject();
        const QString id = node.value(QStringLiteral("id")).toString();
        if (!byId.contains(id)) {
            result.append(node);
            continue;
        }
        seen << id;
        const QJsonValue patch = byId.value(id);
        if (patch.isNull()) {
            *removed << id;
            continue;
        }
        if (!patch.isObject())
            return Error::inFile(overlayFile, QStringLiteral("a node's patch must be an object (or null to remove it)"),
                                 QStringLiteral("nodes.") + id);
        QJsonObject merged = mergePatch(node, patch).toObject();
        merged.insert(QStringLiteral("id"), id);  // the key names the node; an "id" inside cannot rename it
        result.append(merged);
    }
    for (auto it = byId.begin(); it != byId.end(); ++it) {
        if (seen.contains(it.key()) || it.value().isNull())
            continue;  // removing a node the preset lacks changes nothing
        if (!it.value().isObject() || !it.value().toObject().value(QStringLiteral("block")).isString())
            return Error::inFile(overlayFile,
                                 QStringLiteral("adds node \"%1\", which needs an object with a \"block\"").arg(it.key()),
                                 QStringLiteral("nodes.") + it.key());
        QJsonObject added = mergePatch(QJsonObject(), it.value()).toObject();  // nulls inside mean nothing here
        added.insert(QStringLiteral("id"), it.key());
        result.append(added);
    }
    return result;
}

// "NODE.PORT" -> NODE.
QString nodeOfEndpoint(const QJsonValue &endpoint)
{
    const QString text = endpoint.toString();
    return text.left(text.indexOf(QLatin1Char('.')));
}

} // namespace

Result<QJsonObject> applyPresetOverlay(const QJsonObject &preset, const QJsonObject &overlay, const QString &overlayFile)
{
    QJsonObject patch = overlay;
    QJsonObject result = preset;
    const QJsonValue nodesPatch = patch.take(QStringLiteral("nodes"));
    if (nodesPatch.isObject()) {
        QStringList removed;
        Result<QJsonArray> nodes = mergeNodesById(preset.value(QStringLiteral("nodes")).toArray(), nodesPatch.toObject(),
                                                  overlayFile, &removed);
        if (!nodes)
            return nodes.error();
        result.insert(QStringLiteral("nodes"), nodes.value());
        if (!removed.isEmpty()) {
            QJsonArray edges;
            for (const QJsonValue &edge : result.value(QStringLiteral("edges")).toArray()) {
                const QJsonObject e = edge.toObject();
                if (!removed.contains(nodeOfEndpoint(e.value(QStringLiteral("from"))))
                    && !removed.contains(nodeOfEndpoint(e.value(QStringLiteral("to")))))
                    edges.append(edge);
            }
            result.insert(QStringLiteral("edges"), edges);
        }
    } else if (!nodesPatch.isUndefined()) {
        patch.insert(QStringLiteral("nodes"), nodesPatch);  // an array (or null): RFC 7386 as for any member
    }
    const QJsonValue edgesPatch = patch.take(QStringLiteral("edges"));
    if (edgesPatch.isObject()) {
        // Keyed by the input an edge feeds (an input has at most one edge): the value names its new source.
        const QJsonObject bySink = edgesPatch.toObject();
        QJsonArray edges;
        for (const QJsonValue &edge : result.value(QStringLiteral("edges")).toArray())
            if (!bySink.contains(edge.toObject().value(QStringLiteral("to")).toString()))
                edges.append(edge);
        for (auto it = bySink.begin(); it != bySink.end(); ++it) {
            if (it.value().isNull())
                continue;
            if (!it.value().isString())
                return Error::inFile(overlayFile,
                                     QStringLiteral("an edge patch maps an input (\"fc2.in\") to its source (\"relu1.out\") "
                                                    "or to null"),
                                     QStringLiteral("edges.") + it.key());
            edges.append(QJsonObject{{QStringLiteral("from"), it.value()}, {QStringLiteral("to"), it.key()}});
        }
        result.insert(QStringLiteral("edges"), edges);
    } else if (!edgesPatch.isUndefined()) {
        patch.insert(QStringLiteral("edges"), edgesPatch);
    }
    return mergePatch(result, patch).toObject();
}

Result<Preset> loadPresetWithOverlays(const QString &path, const QStringList &overlayFiles, QStringList *overlaySha256)
{
    Result<QJsonObject> base = readJsonObjectFile(path);
    if (!base)
        return base.error();
    if (overlayFiles.isEmpty())
        return presetFromJson(base.value(), path);
    Result<QJsonObject> merged = migratePresetJson(base.value(), path);
    if (!merged)
        return merged.error();
    QStringList names, hashes;
    for (const QString &file : overlayFiles) {
        QByteArray bytes;
        Result<QJsonObject> overlay = readJsonObjectFile(file, &bytes);
        if (!overlay)
            return overlay.error();
        if (overlaySha256)
            hashes << Sha256::hexHash(bytes);
        Result<QJsonObject> next = applyPresetOverlay(merged.value(), overlay.value(), file);
        if (!next)
            return next.error();
        merged = next;
        names << QFileInfo(file).fileName();
    }
    Result<Preset> preset = presetFromJson(merged.value(), path);
    if (!preset) {
        Error e = preset.error();
        e.message += QStringLiteral(" (in the preset merged with %1)").arg(names.join(QStringLiteral(", ")));
        return e;
    }
    if (overlaySha256)
        *overlaySha256 = hashes;
    return preset;
}

} // namespace ty
