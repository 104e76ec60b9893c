#pragma once
// Where an edge runs on the canvas. A plain S-curve from the output port to the input port when that curve
// crosses no node; else an orthogonal route with rounded corners that detours around the nodes in its way:
// out of the source to the right, along a horizontal lane that is free of nodes, and into the target from
// the left (so edges between distant columns, and edges back to the next row of a wrapped layout, run in the
// gaps between nodes instead of through them). Pure functions of points and rectangles, for the tests.

#include <QList>
#include <QPainterPath>
#include <QPointF>
#include <QRectF>

namespace ty {

// The S-curve between two scene points, as drawn for free edges and the connection being dragged.
QPainterPath edgeCurve(const QPointF &from, const QPointF &to);

// The route from `from` (an output port) to `to` (an input port) that avoids `obstacles` (the other nodes'
// rectangles) where it can; when no simple detour is free, the curve.
QPainterPath routeEdge(const QPointF &from, const QPointF &to, const QList<QRectF> &obstacles);

// Whether any part of `path` (curves flattened) passes through `rect`.
bool pathCrossesRect(const QPainterPath &path, const QRectF &rect);

} // namespace ty
