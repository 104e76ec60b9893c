#include "core_test_support.h"

#include <QDir>

namespace tytest {

QString presetsDir()
{
    return QStringLiteral(TRAINYARD_SOURCE_DIR "/presets");
}

QStringList bundledPresetFiles()
{
    QStringList files;
    const QDir dir(presetsDir());
    for (const QString &name : dir.entryList({QStringLiteral("*.trainyard.json")}, QDir::Files, QDir::Name))
        files << dir.filePath(name);
    return files;
}

ty::Node node(const QString &id, const QString &block, const QJsonObject &params)
{
    ty::Node n;
    n.id = id;
    n.block = block;
    n.params = params;
    return n;
}

ty::Edge edge(const QString &from, const QString &to)
{
    // Plain splitting at the last dot, independent of Endpoint::parse (which has tests of its own).
    ty::Edge e;
    e.from = ty::Endpoint{from.section(QLatin1Char('.'), 0, -2), from.section(QLatin1Char('.'), -1)};
    e.to = ty::Endpoint{to.section(QLatin1Char('.'), 0, -2), to.section(QLatin1Char('.'), -1)};
    return e;
}

ty::PipelineGraph graph(std::initializer_list<ty::Node> nodes,
                        std::initializer_list<std::pair<const char *, const char *>> edges)
{
    ty::PipelineGraph g;
    for (const ty::Node &n : nodes)
        g.nodes.append(n);
    for (const auto &e : edges)
        g.edges.append(edge(QString::fromLatin1(e.first), QString::fromLatin1(e.second)));
    return g;
}

ty::PipelineGraph minimalGraph()
{
    return graph({node(QStringLiteral("data"), QStringLiteral("dataset.fashion_mnist")),
                  node(QStringLiteral("fc"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 10}}),
                  node(QStringLiteral("loss"), QStringLiteral("loss.cross_entropy")),
                  node(QStringLiteral("opt"), QStringLiteral("optimizer.sgd"))},
                 {{"data.images", "fc.in"},
                  {"fc.out", "loss.input"},
                  {"data.labels", "loss.target"},
                  {"loss.loss", "opt.loss"}});
}

ty::Preset minimalPreset()
{
    ty::Preset preset;
    preset.name = QStringLiteral("minimal");
    preset.graph = minimalGraph();
    preset.training = QJsonObject{{QStringLiteral("epochs"), 2}, {QStringLiteral("batch_size"), 64}};
    return preset;
}

void removeNode(ty::PipelineGraph *graph, const QString &id)
{
    graph->nodes.removeAt(graph->indexOf(id));
    for (int i = graph->edges.size() - 1; i >= 0; --i)
        if (graph->edges.at(i).from.node == id || graph->edges.at(i).to.node == id)
            graph->edges.removeAt(i);
}

bool removeEdge(ty::PipelineGraph *graph, const QString &from, const QString &to)
{
    return graph->edges.removeAll(edge(from, to)) == 1;
}

QString dump(const ty::Issues &issues)
{
    if (issues.isEmpty())
        return QStringLiteral("(no issues)");
    QStringList lines;
    for (const ty::Issue &issue : issues)
        lines << issue.toString();
    return lines.join(QLatin1Char('\n'));
}

ty::Issues errorsOf(const ty::Issues &issues)
{
    ty::Issues out;
    for (const ty::Issue &issue : issues)
        if (issue.severity == ty::Severity::Error)
            out << issue;
    return out;
}

ty::Issues withMessage(const ty::Issues &issues, const QString &text)
{
    ty::Issues out;
    for (const ty::Issue &issue : issues)
        if (issue.message.contains(text))
            out << issue;
    return out;
}

} // namespace tytest
