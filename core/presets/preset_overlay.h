#pragma once
// Overlays: JSON files merged over a preset before it is loaded, so one base preset serves several setups
// (`--overlay small.json --overlay gpu.json`). The merge is JSON Merge Patch (RFC 7386): an object merges
// member by member, `null` removes a member, anything else replaces it, arrays included. One addition for the
// node list, which is an array: an overlay's "nodes" may be an object keyed by node id, and then each member
// merges into the node with that id (`null` removes the node and its edges; an id the preset lacks adds a
// node, which needs a "block"). Likewise "edges" may be an object keyed by the input an edge feeds, since an
// input has one edge at most: `"fc4.in": "fc3.out"` connects it (replacing its edge), `null` disconnects it.
// An overlay's "nodes" or "edges" given as an array replaces the whole list, as RFC 7386 says.

#include "error.h"
#include "preset.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QStringList>

namespace ty {

// RFC 7386: `patch` merged into `target`.
QJsonValue mergePatch(const QJsonValue &target, const QJsonValue &patch);

// `overlay` merged into the preset JSON `preset` (current format version), with the node-list addition above.
// Errors name `overlayFile` and the member at fault (a node patch that is not an object, a new node without a
// block, an id that is not text).
Result<QJsonObject> applyPresetOverlay(const QJsonObject &preset, const QJsonObject &overlay,
                                       const QString &overlayFile);

// Reads the preset at `path`, brings it to the current format, merges every overlay file in order, and loads
// the result. Errors name the file at fault; one found in the merged preset says which overlays it came with.
// `overlaySha256`, when given, receives the sha256 (hex) of each overlay's bytes as merged, in order.
Result<Preset> loadPresetWithOverlays(const QString &path, const QStringList &overlayFiles,
                                      QStringList *overlaySha256 = nullptr);

} // namespace ty
