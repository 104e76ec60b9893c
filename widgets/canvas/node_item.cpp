#include "node_item.h"

#include "common/canvas_style.h"
#include "edge_item.h"
#include "icons/icon_library.h"
#include "pipeline_scene.h"
#include "port_item.h"

#include "block_descriptor.h"
#include "cost_estimate.h"
#include "memory_estimate.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <QStyleOptionGraphicsItem>

#include <algorithm>

namespace ty {

using namespace style;

namespace {

constexpr qreal kOutline = 4;  // room for the selection ring around the node

QString shapeString(const std::vector<qint64> &shape)
{
    return shape.empty() ? QString() : shapeToText(shape);
}

} // namespace

NodeItem::NodeItem(const Node &node, const BlockDescriptor *block) : m_id(node.id), m_block(block)
{
    setFlags(ItemIsMovable | ItemIsSelectable | ItemSendsGeometryChanges);
    setAcceptHoverEvents(true);
    setZValue(1);
    if (block) {
        for (const PortSpec &spec : block->inputs)
            m_ports.append(new PortItem(this, spec, false));
        for (const PortSpec &spec : block->outputs)
            m_ports.append(new PortItem(this, spec, true));
    }
    layoutPorts();
    setPos(node.pos);
    refreshToolTip();
}

void NodeItem::setNodeId(const QString &id)
{
    m_id = id;
    for (PortItem *port : m_ports)
        port->refreshToolTip();
    refreshToolTip();
    update();
}

// Optional tensor inputs (add's and concat's c to h) show when connected, and the first free one besides, so a
// join of two inputs is as small as before and one more can always be connected.
void NodeItem::layoutPorts()
{
    bool freeShown = false;
    for (PortItem *port : m_ports) {
        if (port->isOutput() || port->spec().required || port->kind() != PortKind::Tensor || port->isConnected()) {
            port->setVisible(true);
        } else {
            port->setVisible(!freeShown);
            freeShown = true;
        }
    }
    int in = 0, out = 0;
    for (PortItem *port : m_ports) {
        if (!port->isVisible())
            continue;
        const int row = port->isOutput() ? out++ : in++;
        const qreal y = kHeaderHeight + kBodyLineHeight + row * kPortRowHeight + kPortRowHeight / 2;
        port->setPos(port->isOutput() ? kNodeWidth : 0, y);
    }
    const QSizeF size(kNodeWidth, kHeaderHeight + kBodyLineHeight + std::max({1, in, out}) * kPortRowHeight + kBottomPadding);
    if (size != m_size) {
        prepareGeometryChange();
        m_size = size;
        for (EdgeItem *edge : m_edges)
            edge->updatePath();
    }
}

void NodeItem::setReport(const NodeShape &shape, const QList<std::vector<qint64>> &inputShapes, qint64 totalParams,
                         const MemoryEstimate &runMemory, const CostEstimate &runCost, const Issues &issues)
{
    m_shape = shape;
    m_inputShapes = inputShapes;
    m_totalParams = totalParams;
    m_runMemory = runMemory;
    m_runCost = runCost;
    m_issues = issues;
    for (PortItem *port : m_ports) {
        QStringList messages;
        for (const Issue &issue : issues) {
            const bool namesInput = m_block && m_block->input(issue.port);  // else it names an output
            if (issue.severity == Severity::Error && issue.port == port->name() && port->isOutput() != namesInput)
                messages << issue.message;
        }
        port->setIssue(messages.join(QLatin1Char('\n')));
    }
    refreshToolTip();
    update();
}

void NodeItem::setFrozenInStage(const QString &stageName)
{
    if (stageName == m_frozenInStage)
        return;
    m_frozenInStage = stageName;
    refreshToolTip();
    update();
}

bool NodeItem::hasErrors() const
{
    return ty::hasErrors(m_issues);
}

QString NodeItem::shapeText() const
{
    if (m_shape.known)
        return shapeString(m_shape.outputShape);
    for (const auto &shape : m_inputShapes)
        if (!shape.empty())
            return QObject::tr("in %1").arg(shapeString(shape));
    return QString();
}

QString NodeItem::paramCountText() const
{
    if (m_block && m_block->category == BlockCategory::Optimizer && m_totalParams > 0)
        return QObject::tr("%1 params").arg(compactCount(m_totalParams));
    if (m_shape.paramCount > 0)
        return QObject::tr("%1 params").arg(compactCount(m_shape.paramCount));
    return QString();
}

QString NodeItem::memoryText() const
{
    if (m_block && m_block->category == BlockCategory::Optimizer)
        return m_runMemory.known ? byteSizeText(m_runMemory.total()) : QString();
    return m_shape.memory.total() > 0 ? byteSizeText(m_shape.memory.total()) : QString();
}

QString NodeItem::countText() const
{
    const QString params = paramCountText(), memory = memoryText();
    return params.isEmpty() || memory.isEmpty() ? params + memory : params + QStringLiteral(" · ") + memory;
}

QString NodeItem::macsText() const
{
    if (m_block && m_block->category == BlockCategory::Optimizer)
        return m_runCost.known && m_runCost.forwardMacs > 0 ? QObject::tr("%1 MACs").arg(macCountText(m_runCost.forwardMacs)) : QString();
    return m_shape.cost.forwardMacs > 0 ? QObject::tr("%1 MACs").arg(macCountText(m_shape.cost.forwardMacs)) : QString();
}

PortItem *NodeItem::port(const QString &name, bool output) const
{
    for (PortItem *port : m_ports)
        if (port->isOutput() == output && port->name() == name)
            return port;
    return nullptr;
}

QPointF NodeItem::portScenePos(const QString &name, bool output) const
{
    if (PortItem *p = port(name, output))
        return p->scenePos();
    // Unknown port (a broken file): the middle of the node's edge.
    return mapToScene(QPointF(output ? m_size.width() : 0, m_size.height() / 2));
}

bool NodeItem::countOnPortRow() const
{
    return m_block && m_block->inputs.size() == 1 && m_block->inputs.first().name == QStringLiteral("in")
           && m_block->outputs.size() <= 1;
}

bool NodeItem::memoryOnPortRow() const
{
    return m_block && m_block->outputs.isEmpty() && !m_block->inputs.isEmpty() && !countOnPortRow();
}

QString NodeItem::outputLabel(const PortItem *port) const
{
    const bool onlyOut = m_block && m_block->outputs.size() == 1 && port->name() == QStringLiteral("out");
    const QString name = onlyOut ? QString() : port->name();
    const bool firstTensor = port->kind() == PortKind::Tensor && m_block
                             && m_block->outputs.first().kind == PortKind::Tensor
                             && m_block->outputs.first().name == port->name();
    if (firstTensor && m_shape.known)
        return name.isEmpty() ? shapeString(m_shape.outputShape) : name + QStringLiteral("  ") + shapeString(m_shape.outputShape);
    return name;
}

QString NodeItem::inputLabel(const PortItem *port, int tensorIndex) const
{
    const bool onlyIn = m_block && m_block->inputs.size() == 1 && port->name() == QStringLiteral("in");
    QString label = onlyIn ? QString() : port->name();
    const bool hasTensorOutput = m_block && std::any_of(m_block->outputs.begin(), m_block->outputs.end(),
                                                        [](const PortSpec &p) { return p.kind == PortKind::Tensor; });
    if (!hasTensorOutput && port->kind() == PortKind::Tensor && tensorIndex < m_inputShapes.size()
        && !m_inputShapes.at(tensorIndex).empty())
        label += QStringLiteral("  ") + shapeString(m_inputShapes.at(tensorIndex));
    return label;
}

void NodeItem::refreshToolTip()
{
    QString tip = QStringLiteral("<b>%1</b>").arg(m_id.toHtmlEscaped());
    if (m_block) {
        tip += QStringLiteral(" &mdash; %1 <span style='color:gray'>(%2)</span><br>%3")
                   .arg(m_block->displayName.toHtmlEscaped(), m_block->typeId, m_block->doc.toHtmlEscaped());
    } else {
        tip += QObject::tr("<br>Unknown block type");
    }
    if (m_shape.known)
        tip += QObject::tr("<br>Output per sample: %1").arg(shapeString(m_shape.outputShape));
    if (m_shape.paramCount > 0)
        tip += QObject::tr("<br>Trainable parameters: %1").arg(groupedCount(m_shape.paramCount));
    if (m_block && m_block->category == BlockCategory::Optimizer && m_totalParams > 0)
        tip += QObject::tr("<br>Trains %1 parameters").arg(groupedCount(m_totalParams));
    if (!m_frozenInStage.isEmpty())
        tip += QObject::tr("<br>&#128274; Frozen in stage “%1”: no gradient, no optimizer step").arg(m_frozenInStage.toHtmlEscaped());
    if (m_block && m_block->category == BlockCategory::Optimizer && m_runMemory.known)
        tip += QObject::tr("<br>The run needs about %1 on its device").arg(memorySummary(m_runMemory).toHtmlEscaped());
    else if (const NodeMemory &m = m_shape.memory; m.total() > 0)
        tip += QObject::tr("<br>Memory while training: %1 (weights, gradients and optimizer state %2, output for a "
                           "training batch %3%4)")
                   .arg(byteSizeText(m.total()), byteSizeText(m.parameters + m.gradients + m.optimizer),
                        byteSizeText(m.activations),
                        m.data > 0 ? QObject::tr(", data on the device %1").arg(byteSizeText(m.data)) : QString());
    if (m_block && m_block->category == BlockCategory::Optimizer && m_runCost.known)
        tip += QObject::tr("<br>The pipeline computes %1 multiply-accumulates (MACs; 1 MAC = 2 FLOPs) a sample forward, "
                           "%2 a training step (3 × forward × a batch of %3)")
                   .arg(groupedCount(m_runCost.forwardMacs), groupedCount(m_runCost.trainingStepMacs))
                   .arg(m_runCost.batchSize);
    else if (m_shape.cost.known && m_shape.cost.forwardMacs > 0)
        tip += QObject::tr("<br>Multiply-accumulates (MACs; 1 MAC = 2 FLOPs): %1 a sample forward, %2 a training step")
                   .arg(groupedCount(m_shape.cost.forwardMacs), groupedCount(m_shape.cost.trainingStepMacs));
    if (m_shape.cost.window && m_shape.cost.receptiveField.known())
        tip += QObject::tr("<br>Receptive field: %1 (in positions of the input)").arg(receptiveFieldText(m_shape.cost.receptiveField));
    for (const Issue &issue : m_issues) {
        const QColor color = issue.severity == Severity::Error ? errorColor() : warningColor();
        QString where = issue.port.isEmpty() ? issue.param : issue.port;
        if (!where.isEmpty())
            where = QStringLiteral("%1: ").arg(where.toHtmlEscaped());
        tip += QStringLiteral("<br><span style='color:%1'>&#9679; %2%3</span>")
                   .arg(color.name(), where, issue.message.toHtmlEscaped());
    }
    setToolTip(tip);
}

QRectF NodeItem::boundingRect() const
{
    return QRectF(QPointF(0, 0), m_size).adjusted(-kOutline, -kOutline, kOutline, kOutline);
}

namespace {

// A white disc with a dark padlock: frozen in the training stage shown in the inspector.
void paintLockBadge(QPainter *painter, const QPointF &center, qreal radius, const QColor &ring)
{
    painter->setPen(QPen(ring.darker(140), radius / 10));
    painter->setBrush(Qt::white);
    painter->drawEllipse(center, radius, radius);
    const qreal glyph = radius * 1.5;
    icons::paintActionGlyph(painter, QStringLiteral("lock"),
                            QRectF(center.x() - glyph / 2, center.y() - glyph / 2 - radius * 0.05, glyph, glyph),
                            QColor(0x1c, 0x27, 0x2e));
}

} // namespace

void NodeItem::paintHeader(QPainter *painter, const QRectF &header, const QColor &color, bool detailed) const
{
    QPainterPath shape;
    shape.addRoundedRect(QRectF(QPointF(0, 0), m_size), kCornerRadius, kCornerRadius);
    QPainterPath band;
    band.addRect(header);
    painter->fillPath(shape.intersected(band), color);
    if (!detailed)
        return;

    qreal right = header.right() - 8;
    if (!m_issues.isEmpty()) {
        const QColor badge = hasErrors() ? errorColor() : warningColor();
        const QPointF c(header.right() - 14, header.center().y());
        painter->setPen(QPen(Qt::white, 1.5));
        painter->setBrush(badge);
        painter->drawEllipse(c, 7.5, 7.5);
        QFont f = smallFont();
        f.setBold(true);
        painter->setFont(f);
        painter->drawText(QRectF(c.x() - 7.5, c.y() - 7.5, 15, 15), Qt::AlignCenter, QStringLiteral("!"));
        right = c.x() - 11;
    }
    if (!m_frozenInStage.isEmpty()) {
        const QPointF c(right - 8, header.center().y());
        paintLockBadge(painter, c, 10, color);
        right = c.x() - 14;
    }
    if (m_block)
        icons::paintCategoryGlyph(painter, m_block->category, QRectF(8, header.center().y() - 7, 14, 14), Qt::white);
    painter->setPen(Qt::white);
    if (const QString macs = macsText(); !macs.isEmpty()) {
        painter->setFont(smallFont());
        painter->drawText(QRectF(28, header.top(), right - 28, header.height()), Qt::AlignVCenter | Qt::AlignRight, macs);
        right -= QFontMetricsF(smallFont()).horizontalAdvance(macs) + 6;
    }
    painter->setFont(titleFont());
    const QRectF text(28, header.top(), right - 28, header.height());
    painter->drawText(text, Qt::AlignVCenter | Qt::AlignLeft,
                      QFontMetricsF(titleFont()).elidedText(m_id, Qt::ElideRight, text.width()));
}

void NodeItem::paintOverviewLabel(QPainter *painter, const QPalette &palette, qreal lod) const
{
    // Zoomed out, the detailed texts would be a few pixels tall: the node id alone, in a font that stays about
    // 10 pixels tall on screen, tells the nodes apart.
    constexpr qreal kScreenPixels = 10;
    const QRectF area(4, kHeaderHeight, m_size.width() - 8, m_size.height() - kHeaderHeight);
    QFont font = titleFont();
    font.setPixelSize(qMax(1, int(qMin(kScreenPixels / qMax(lod, 0.01), area.height() * 0.8))));
    painter->setFont(font);
    painter->setPen(palette.color(QPalette::Text));
    painter->drawText(area, Qt::AlignCenter, QFontMetricsF(font).elidedText(m_id, Qt::ElideRight, area.width()));
}

void NodeItem::paintPortLabels(QPainter *painter, const QPalette &palette) const
{
    // Row by row: the output's label (a shape, usually) keeps its room; the input's label takes what is left.
    painter->setFont(smallFont());
    const QFontMetricsF metrics(smallFont());
    struct Label {
        QString text;
        const PortItem *port = nullptr;
    };
    QList<Label> left, right;
    int tensorIn = 0;
    for (const PortItem *port : m_ports) {
        // The report has an input shape for every tensor input port, shown or not.
        const int index = tensorIn;
        if (!port->isOutput() && port->kind() == PortKind::Tensor)
            ++tensorIn;
        if (!port->isVisible())
            continue;
        if (port->isOutput())
            right.append({outputLabel(port), port});
        else
            left.append({inputLabel(port, index), port});
    }
    if (countOnPortRow() && !left.isEmpty())
        left.first().text = paramCountText();
    if (memoryOnPortRow())
        right.append({memoryText(), nullptr});
    auto colorOf = [&](const Label &label) {
        if (label.port && label.port->hasIssue())
            return errorColor();
        const bool isShape = label.text.startsWith(QLatin1Char('[')) || label.text.contains(QStringLiteral("  ["));
        return isShape ? palette.color(QPalette::Text) : mutedText(palette);
    };
    const int rows = std::max(left.size(), right.size());
    for (int row = 0; row < rows; ++row) {
        const QRectF rect(9, kHeaderHeight + kBodyLineHeight + row * kPortRowHeight, m_size.width() - 18,
                          kPortRowHeight);
        qreal used = 0;
        if (row < right.size()) {
            const QString text = metrics.elidedText(right.at(row).text, Qt::ElideMiddle, rect.width());
            used = text.isEmpty() ? 0 : metrics.horizontalAdvance(text) + 5;
            painter->setPen(colorOf(right.at(row)));
            painter->drawText(rect, Qt::AlignVCenter | Qt::AlignRight, text);
        }
        if (row < left.size()) {
            painter->setPen(colorOf(left.at(row)));
            painter->drawText(rect, Qt::AlignVCenter | Qt::AlignLeft,
                              metrics.elidedText(left.at(row).text, Qt::ElideRight, rect.width() - used));
        }
    }
}

void NodeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget)
{
    const QPalette palette = widget ? widget->palette() : scene()->palette();
    const qreal lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const bool detailed = lod > 0.4;
    const QRectF body(QPointF(0, 0), m_size);
    const QColor accent = m_block ? categoryColor(m_block->category) : QColor(0x80, 0x80, 0x80);
    painter->setRenderHint(QPainter::Antialiasing);

    if (isSelected()) {
        painter->setPen(QPen(selectionColor(palette), 2.5));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(body.adjusted(-3, -3, 3, 3), kCornerRadius + 3, kCornerRadius + 3);
    }
    painter->setPen(Qt::NoPen);
    painter->setBrush(nodeBody(palette));
    painter->drawRoundedRect(body, kCornerRadius, kCornerRadius);
    if (!m_frozenInStage.isEmpty()) {
        // Frozen in the shown stage: an icy tint, visible at any zoom.
        painter->setBrush(QColor(70, 140, 230, isDark(palette) ? 60 : 34));
        painter->drawRoundedRect(body, kCornerRadius, kCornerRadius);
    }
    paintHeader(painter, QRectF(0, 0, m_size.width(), kHeaderHeight), accent, detailed);

    const QColor outline = hasErrors() ? errorColor() : !m_issues.isEmpty() ? warningColor() : nodeBorder(palette);
    painter->setPen(QPen(outline, m_issues.isEmpty() ? 1 : 2));
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(body.adjusted(0.5, 0.5, -0.5, -0.5), kCornerRadius, kCornerRadius);
    if (!detailed) {
        if (!m_frozenInStage.isEmpty()) {  // zoomed out: a badge of about 9 pixels radius on screen, inside the node
            const qreal radius = std::min(9 / std::max(lod, 0.01), (m_size.height() - 6) / 2);
            paintLockBadge(painter, QPointF(m_size.width() - radius - 3, radius + 3), radius, accent);
        }
        return paintOverviewLabel(painter, palette, lod);
    }

    // Parameter count and memory go here, beside the block's name; the count goes on the port row instead when
    // that row has room (one unnamed input), and the memory when the node has no outputs (the optimizer).
    const QRectF line(9, kHeaderHeight, m_size.width() - 18, kBodyLineHeight);
    const QString count = countOnPortRow() ? memoryText() : memoryOnPortRow() ? paramCountText() : countText();
    painter->setFont(smallFont());
    const qreal countWidth = count.isEmpty() ? 0 : QFontMetricsF(smallFont()).horizontalAdvance(count) + 6;
    painter->setPen(mutedText(palette));
    painter->drawText(line, Qt::AlignVCenter | Qt::AlignRight, count);
    painter->setFont(bodyFont());
    painter->setPen(palette.color(QPalette::Text));
    const QString name = m_block ? m_block->displayName : QObject::tr("unknown block");
    painter->drawText(line.adjusted(0, 0, -countWidth, 0), Qt::AlignVCenter | Qt::AlignLeft,
                      QFontMetricsF(bodyFont()).elidedText(name, Qt::ElideRight, line.width() - countWidth));
    paintPortLabels(painter, palette);
}

QVariant NodeItem::itemChange(GraphicsItemChange change, const QVariant &value)
{
    if (change == ItemPositionChange) {
        if (auto *pipelineScene = qobject_cast<PipelineScene *>(scene()))
            return pipelineScene->constrainDraggedPosition(value.toPointF());
    } else if (change == ItemPositionHasChanged) {
        for (EdgeItem *edge : m_edges)
            edge->updatePath();
    } else if (change == ItemSelectedHasChanged) {
        setZValue(value.toBool() ? 2 : 1);
    }
    return QGraphicsItem::itemChange(change, value);
}

} // namespace ty
