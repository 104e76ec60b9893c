#include "report_graph.h"

#include "block_registry.h"
#include "cost_estimate.h"
#include "report_svg.h"

#include <QHash>
#include <QLocale>
#include <QSet>

#include <algorithm>
#include <limits>

namespace ty {

namespace {

constexpr double kBoxW = 170, kBoxH = 58, kMargin = 36;  // room for the bends of edges that go back a row

QString categoryFill(const BlockDescriptor *block)
{
    if (!block)
        return QStringLiteral("#ede7f6");  // a composite block of the preset
    switch (block->category) {
    case BlockCategory::Dataset: return QStringLiteral("#e3f2fd");
    case BlockCategory::Transform: return QStringLiteral("#e0f7fa");
    case BlockCategory::Layer: return QStringLiteral("#e8f5e9");
    case BlockCategory::Loss: return QStringLiteral("#ffebee");
    case BlockCategory::Optimizer: return QStringLiteral("#fff3e0");
    case BlockCategory::Schedule: return QStringLiteral("#fffde7");
    case BlockCategory::Metric: return QStringLiteral("#f3e5f5");
    }
    return QStringLiteral("#f5f5f5");
}

// The canvas positions, or a grid in graph order where the preset has none to tell nodes apart.
QHash<QString, QPointF> nodePositions(const PipelineGraph &graph)
{
    QHash<QString, QPointF> positions;
    QSet<QPair<double, double>> distinct;
    for (const Node &node : graph.nodes) {
        positions.insert(node.id, node.pos);
        distinct.insert({node.pos.x(), node.pos.y()});
    }
    if (distinct.size() < graph.nodes.size()) {
        for (int i = 0; i < graph.nodes.size(); ++i)
            positions.insert(graph.nodes[i].id, QPointF((i % 4) * (kBoxW + 50), (i / 4) * (kBoxH + 50)));
    }
    return positions;
}

QString excerpt(const QString &text, int chars)
{
    return text.size() <= chars ? text : text.left(chars - 1) + QChar(0x2026);
}

} // namespace

QString graphPictureSvg(const Preset &preset, const ShapeReport &shapes)
{
    const PipelineGraph &graph = preset.graph;
    const QHash<QString, QPointF> positions = nodePositions(graph);
    double minX = std::numeric_limits<double>::max(), minY = minX, maxX = std::numeric_limits<double>::lowest(), maxY = maxX;
    for (const QPointF &p : positions) {
        minX = std::min(minX, p.x());
        minY = std::min(minY, p.y());
        maxX = std::max(maxX, p.x() + kBoxW);
        maxY = std::max(maxY, p.y() + kBoxH);
    }
    if (graph.nodes.isEmpty())
        minX = minY = 0, maxX = kBoxW, maxY = kBoxH;
    const auto at = [&](const QString &id) { return positions.value(id) - QPointF(minX - kMargin, minY - kMargin); };
    SvgWriter svg(maxX - minX + 2 * kMargin, maxY - minY + 2 * kMargin,
                  QStringLiteral("The graph of %1").arg(preset.name.isEmpty() ? QStringLiteral("the preset") : preset.name),
                  QStringLiteral("graph"));
    for (const Edge &edge : graph.edges) {
        if (!positions.contains(edge.from.node) || !positions.contains(edge.to.node))
            continue;
        const QPointF from = at(edge.from.node) + QPointF(kBoxW, kBoxH / 2), to = at(edge.to.node) + QPointF(0, kBoxH / 2);
        svg.beginGroup(edge.from.toString() + QStringLiteral(" \u2192 ") + edge.to.toString());
        svg.curve(from, to, QStringLiteral("#78909c"));
        svg.circle(to.x(), to.y(), 3, QStringLiteral("#78909c"));
        svg.endGroup();
    }
    const QLocale locale(QLocale::English);
    for (const Node &node : graph.nodes) {
        const BlockDescriptor *block = BlockRegistry::builtin().find(node.block);
        const NodeShape shape = shapes.nodes.value(node.id);
        QString detail = shape.known ? shapeToText(shape.outputShape) : QString();
        if (shape.paramCount > 0)
            detail += (detail.isEmpty() ? QString() : QStringLiteral(", ")) + locale.toString(shape.paramCount) + QStringLiteral(" params");
        QString tooltip = node.id + QStringLiteral(" (") + node.block + QLatin1Char(')');
        if (shape.cost.known && shape.cost.forwardMacs > 0)
            tooltip += QStringLiteral("\n") + macCountText(shape.cost.forwardMacs) + QStringLiteral(" MACs a sample");
        if (node.repeat > 1)
            tooltip += QStringLiteral("\nrepeated %1 times").arg(node.repeat);
        const QPointF p = at(node.id);
        svg.beginGroup(tooltip);
        svg.rect(p.x(), p.y(), kBoxW, kBoxH, categoryFill(block), QStringLiteral("#607d8b"), 6);
        svg.text(p.x() + 8, p.y() + 18, excerpt(node.id, 24), QStringLiteral("start"), 12, QStringLiteral("#111"), true);
        svg.text(p.x() + 8, p.y() + 34,
                 excerpt((block ? block->displayName : node.block) + (node.repeat > 1 ? QStringLiteral(" \u00d7%1").arg(node.repeat) : QString()), 28),
                 QStringLiteral("start"), 10, QStringLiteral("#444"));
        if (!detail.isEmpty())
            svg.text(p.x() + 8, p.y() + 49, excerpt(detail, 30), QStringLiteral("start"), 9, QStringLiteral("#666"));
        svg.endGroup();
    }
    return svg.finish();
}

} // namespace ty
