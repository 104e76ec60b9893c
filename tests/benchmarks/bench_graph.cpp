#include "bench_graph.h"

namespace ty::bench {

Preset twoHundredNodeGraph()
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
    for (int i = 0; i < g.nodes.size(); ++i)
        g.nodes[i].pos = QPointF((i % 10) * 240, (i / 10) * 160);
    return preset;
}

} // namespace ty::bench
