#include "edge_routing.h"

#include <QLineF>
#include <QPolygonF>

#include <algorithm>
#include <cmath>

namespace ty {

namespace {

constexpr qreal kStub = 20;      // how far a route leaves its port horizontally before it turns
constexpr qreal kClearance = 14; // between a lane and the nodes it passes
constexpr qreal kCorner = 8;     // radius of the rounded corners

// Liang-Barsky: whether the segment a-b enters `rect`.
bool segmentCrossesRect(const QPointF &a, const QPointF &b, const QRectF &rect)
{
    const qreal dx = b.x() - a.x(), dy = b.y() - a.y();
    qreal t0 = 0, t1 = 1;
    const qreal p[4] = {-dx, dx, -dy, dy};
    const qreal q[4] = {a.x() - rect.left(), rect.right() - a.x(), a.y() - rect.top(), rect.bottom() - a.y()};
    for (int i = 0; i < 4; ++i) {
        if (qFuzzyIsNull(p[i])) {
            if (q[i] < 0)
                return false;
            continue;
        }
        const qreal t = q[i] / p[i];
        if (p[i] < 0)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
        if (t0 > t1)
            return false;
    }
    return true;
}

bool crossesAny(const QPainterPath &path, const QList<QRectF> &obstacles)
{
    // Widened: a straight horizontal edge has a bounding rect of no height, which intersects nothing.
    const QRectF bounds = path.controlPointRect().adjusted(-1, -1, 1, 1);
    for (const QRectF &rect : obstacles)
        if (bounds.intersects(rect) && pathCrossesRect(path, rect))
            return true;
    return false;
}

// A polyline with its corners rounded off.
QPainterPath roundedPolyline(const QList<QPointF> &points)
{
    QPainterPath path(points.first());
    for (int i = 1; i + 1 < points.size(); ++i) {
        const QPointF corner = points.at(i);
        const QLineF in(corner, points.at(i - 1)), out(corner, points.at(i + 1));
        const qreal r = std::min({kCorner, in.length() / 2, out.length() / 2});
        if (r <= 0.5) {
            path.lineTo(corner);
            continue;
        }
        path.lineTo(in.pointAt(r / in.length()));
        path.quadTo(corner, out.pointAt(r / out.length()));
    }
    path.lineTo(points.last());
    return path;
}

} // namespace

QPainterPath edgeCurve(const QPointF &from, const QPointF &to)
{
    // Horizontal tangents at both ends; longer handles when the edge runs backwards, so it loops around.
    const qreal dx = to.x() - from.x();
    const qreal handle = dx >= 0 ? std::max(30.0, dx * 0.5) : std::max(60.0, std::min(-dx * 0.5, 160.0));
    QPainterPath path(from);
    path.cubicTo(from + QPointF(handle, 0), to - QPointF(handle, 0), to);
    return path;
}

bool pathCrossesRect(const QPainterPath &path, const QRectF &rect)
{
    for (const QPolygonF &polygon : path.toSubpathPolygons())
        for (int i = 0; i + 1 < polygon.size(); ++i)
            if (segmentCrossesRect(polygon.at(i), polygon.at(i + 1), rect))
                return true;
    return false;
}

QPainterPath routeEdge(const QPointF &from, const QPointF &to, const QList<QRectF> &obstacles)
{
    const QPainterPath curve = edgeCurve(from, to);
    // An edge running back to the left (into the next row of a wrapped layout) takes right angles through the
    // gap between the rows even where its curve would pass: a long diagonal across the graph reads as clutter.
    const bool runsBack = to.x() < from.x() - 2 * kStub;
    if (!runsBack && (obstacles.isEmpty() || !crossesAny(curve, obstacles)))
        return curve;

    // Lanes: level with either port, between them, and just above or below every node in the way.
    QList<qreal> lanes{from.y(), to.y(), (from.y() + to.y()) / 2};
    for (const QRectF &rect : obstacles)
        lanes << rect.top() - kClearance << rect.bottom() + kClearance;
    std::sort(lanes.begin(), lanes.end(), [&](qreal a, qreal b) {
        return std::abs(a - from.y()) + std::abs(a - to.y()) < std::abs(b - from.y()) + std::abs(b - to.y());
    });
    // The vertical legs run in the gaps just beside the ports; a little further out when a node is there.
    const QList<qreal> outs{from.x() + kStub, from.x() + 2 * kStub};
    const QList<qreal> ins{to.x() - kStub, to.x() - 2 * kStub};
    for (const qreal lane : lanes)
        for (const qreal out : outs)
            for (const qreal in : ins) {
                const QList<QPointF> points{from, {out, from.y()}, {out, lane}, {in, lane}, {in, to.y()}, to};
                const QPainterPath route = roundedPolyline(points);
                if (!crossesAny(route, obstacles))
                    return route;
            }
    return curve;
}

} // namespace ty
