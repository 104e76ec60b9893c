// Editing latency: validation and shape inference of a 200-node graph, and `trainyard-cli validate` start-up.

#include "bench_sections.h"
#include "preset_format.h"
#include "shape_inference.h"

#include <QProcess>

#include <algorithm>

namespace ty::bench {

namespace {

// data -> 197 alternating linear / relu nodes (with a residual add every 8) -> loss -> optimizer: 200 nodes.
Preset twoHundredNodes()
{
    Preset preset;
    PipelineGraph &g = preset.graph;
    g.nodes.append(Node{QStringLiteral("data"), QStringLiteral("dataset.synthetic"), QJsonObject{{QStringLiteral("features"), 64}}, {}});
    QString previous = QStringLiteral("data"), previousPort = QStringLiteral("features");
    QString residual;
    for (int i = 0; g.nodes.size() < 197; ++i) {
        const QString id = QStringLiteral("n%1").arg(i);
        const bool add = !residual.isEmpty() && i % 8 == 7;
        const QString block = add ? QStringLiteral("layer.add") : (i % 2 == 0 ? QStringLiteral("layer.linear") : QStringLiteral("layer.relu"));
        g.nodes.append(Node{id, block, block == QStringLiteral("layer.linear") ? QJsonObject{{QStringLiteral("out_features"), 64}} : QJsonObject{}, {}});
        if (add) {
            g.edges.append(Edge{{previous, previousPort}, {id, QStringLiteral("a")}});
            g.edges.append(Edge{{residual, QStringLiteral("out")}, {id, QStringLiteral("b")}});
        } else {
            g.edges.append(Edge{{previous, previousPort}, {id, QStringLiteral("in")}});
        }
        if (i % 8 == 0)
            residual = id;
        previous = id;
        previousPort = QStringLiteral("out");
    }
    g.nodes.append(Node{QStringLiteral("head"), QStringLiteral("layer.linear"), QJsonObject{{QStringLiteral("out_features"), 4}}, {}});
    g.edges.append(Edge{{previous, previousPort}, {QStringLiteral("head"), QStringLiteral("in")}});
    g.nodes.append(Node{QStringLiteral("loss"), QStringLiteral("loss.cross_entropy"), {}, {}});
    g.nodes.append(Node{QStringLiteral("opt"), QStringLiteral("optimizer.adam"), {}, {}});
    g.edges.append(Edge{{QStringLiteral("head"), QStringLiteral("out")}, {QStringLiteral("loss"), QStringLiteral("input")}});
    g.edges.append(Edge{{QStringLiteral("data"), QStringLiteral("target")}, {QStringLiteral("loss"), QStringLiteral("target")}});
    g.edges.append(Edge{{QStringLiteral("loss"), QStringLiteral("loss")}, {QStringLiteral("opt"), QStringLiteral("loss")}});
    return preset;
}

double median(QList<double> values)
{
    std::sort(values.begin(), values.end());
    return values.at(values.size() / 2);
}

} // namespace

void benchValidation(const Options &options, Report &report)
{
    std::fprintf(stderr, "validation\n");
    const Preset preset = twoHundredNodes();
    QList<double> times;
    for (int i = 0; i < (options.quick ? 5 : 21); ++i) {
        const double start = now();
        const ShapeReport shapes = inspectPreset(preset);
        times << now() - start;
        if (!shapes.ok())
            qFatal("the 200-node benchmark graph has issues: %s", qPrintable(shapes.issues.first().toString()));
    }
    const double ms = median(times) * 1000;
    report.add(QStringLiteral("editing"), QStringLiteral("validate + infer shapes, %1-node graph (median)").arg(preset.graph.nodes.size()), ms,
               QStringLiteral("ms"), QStringLiteral("<= 50"), ms <= 50);

    QList<double> startups;
    for (int i = 0; i < (options.quick ? 3 : 7); ++i) {
        QProcess cli;
        const double start = now();
        cli.start(QStringLiteral(TRAINYARD_CLI), {QStringLiteral("validate"), QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/fashion-mnist-mlp.trainyard.json")});
        cli.waitForFinished(-1);
        startups << now() - start;
    }
    const double startup = median(startups);
    report.add(QStringLiteral("editing"), QStringLiteral("`trainyard-cli validate` of the MLP preset, wall time (median)"), startup * 1000,
               QStringLiteral("ms"), QStringLiteral("<= 500"), startup <= 0.5);
}

} // namespace ty::bench
