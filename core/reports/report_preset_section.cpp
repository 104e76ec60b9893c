#include "report_sections.h"

#include "block_registry.h"
#include "cost_estimate.h"
#include "preset_format.h"
#include "preset_inspection.h"
#include "report_graph.h"
#include "report_html.h"
#include "report_page.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>

namespace ty {

QString jsonBlock(const QJsonValue &value)
{
    const QByteArray text = value.isArray() ? QJsonDocument(value.toArray()).toJson(QJsonDocument::Indented)
                                            : QJsonDocument(value.toObject()).toJson(QJsonDocument::Indented);
    return QStringLiteral("<pre>") + htmlEscaped(QString::fromUtf8(text).trimmed()) + QStringLiteral("</pre>");
}

QString presetSectionBody(const QJsonObject &presetJson, const QString &presetFile, QJsonObject *data)
{
    Result<Preset> loaded = presetFromJson(presetJson, presetFile.isEmpty() ? QStringLiteral("the recorded preset") : presetFile);
    if (!loaded) {
        data->insert(QStringLiteral("error"), loaded.error().toString());
        return paragraph(QStringLiteral("The recorded preset does not load: ") + loaded.error().toString(), QStringLiteral("note"))
               + jsonBlock(presetJson);
    }
    Preset preset = loaded.value();
    preset.sourcePath = presetFile;  // relative data paths resolve as they did for the run
    const ShapeReport shapes = inspectPresetShapes(preset);
    const QLocale locale(QLocale::English);

    QList<QPair<QString, QString>> facts{{QStringLiteral("Name"), preset.name}};
    if (!preset.description.isEmpty())
        facts.append({QStringLiteral("Description"), preset.description});
    if (!preset.hypothesis.isEmpty())
        facts.append({QStringLiteral("Hypothesis"), preset.hypothesis});
    facts.append({QStringLiteral("Blocks"), QStringLiteral("%1 nodes, %2 edges").arg(preset.graph.nodes.size()).arg(preset.graph.edges.size())});
    facts.append({QStringLiteral("Trainable parameters"), locale.toString(shapes.totalParams)});
    if (shapes.cost.known)
        facts.append({QStringLiteral("Multiply-accumulates (MACs; 1 MAC = 2 FLOPs)"),
                      QStringLiteral("%1 a sample forward; %2 a training step (3 x forward x a batch of %3)")
                          .arg(locale.toString(shapes.cost.forwardMacs), locale.toString(shapes.cost.trainingStepMacs))
                          .arg(shapes.cost.batchSize)});
    else
        facts.append({QStringLiteral("Multiply-accumulates (MACs)"), QStringLiteral("unknown: the preset does not plan here (%1 issues)")
                                                                          .arg(shapes.issues.size())});
    if (!presetFile.isEmpty())
        facts.append({QStringLiteral("Preset file"), presetFile});

    data->insert(QStringLiteral("name"), preset.name);
    data->insert(QStringLiteral("blocks"), preset.graph.nodes.size());
    data->insert(QStringLiteral("parameters"), shapes.totalParams);
    data->insert(QStringLiteral("macs"), shapes.cost.known ? QJsonValue(QJsonObject{{QStringLiteral("forward"), shapes.cost.forwardMacs},
                                                                                    {QStringLiteral("training_step"), shapes.cost.trainingStepMacs},
                                                                                    {QStringLiteral("batch_size"), shapes.cost.batchSize}})
                                                           : QJsonValue());
    data->insert(QStringLiteral("preset"), presetJson);

    QList<QList<TableCell>> rows;
    for (const Node &node : preset.graph.nodes) {
        const NodeShape shape = shapes.nodes.value(node.id);
        rows.append({node.id, node.block, shape.known ? shapeToText(shape.outputShape) : QStringLiteral("-"),
                     TableCell::number(locale.toString(shape.paramCount)),
                     TableCell::number(shape.cost.known ? macCountText(shape.cost.forwardMacs) : QStringLiteral("-")),
                     TableCell::number(shape.cost.known ? macCountText(shape.cost.trainingStepMacs) : QStringLiteral("-"))});
    }
    return factsTable(facts) + QStringLiteral("<h3>Graph</h3>") + graphPictureSvg(preset, shapes) + QStringLiteral("<h3>Nodes</h3>")
           + dataTable({QStringLiteral("node"), QStringLiteral("block"), QStringLiteral("output"), TableCell::number(QStringLiteral("params")),
                        TableCell::number(QStringLiteral("MACs/sample")), TableCell::number(QStringLiteral("MACs/step"))},
                       rows);
}

} // namespace ty
