#pragma once
// Copy and paste: a fragment is some nodes with the edges among them. On the clipboard it is preset JSON
// (presetToJson of a preset holding only the fragment), so a preset file's text pastes as well.

#include "error.h"
#include "pipeline_graph.h"

#include <QByteArray>
#include <QPointF>
#include <QStringList>

class QMimeData;

namespace ty {

inline constexpr char kPresetMimeType[] = "application/x-trainyard-preset";

// The nodes named in `nodeIds` (in graph order) and the edges whose both ends are among them.
PipelineGraph fragmentOf(const PipelineGraph &graph, const QStringList &nodeIds);

QByteArray fragmentToJson(const PipelineGraph &fragment);
Result<PipelineGraph> fragmentFromJson(const QByteArray &json);

// Clipboard payload: the JSON as kPresetMimeType and as plain text. Caller owns the returned object.
QMimeData *fragmentMimeData(const PipelineGraph &fragment);
Result<PipelineGraph> fragmentFromMimeData(const QMimeData *mime);

// The fragment ready to add to `target`: ids kept where free, else fresh (fc1 -> fc, fc2, ...), edges
// renamed along (edges to nodes outside the fragment dropped), positions shifted by `offset`.
PipelineGraph freshFragment(const PipelineGraph &fragment, const PipelineGraph &target, const QPointF &offset);

} // namespace ty
