#pragma once
// Shared helpers of the core test suite: small graphs built in code, the bundled presets, and readable
// dumps of issues for failure messages.

#include "issue.h"
#include "pipeline_graph.h"
#include "preset.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <initializer_list>
#include <utility>

namespace tytest {

// The repository's presets/ folder and every *.trainyard.json in it, sorted.
QString presetsDir();
QStringList bundledPresetFiles();

ty::Node node(const QString &id, const QString &block, const QJsonObject &params = {});
ty::Edge edge(const QString &from, const QString &to);  // "data.images", "fc.in"
ty::PipelineGraph graph(std::initializer_list<ty::Node> nodes,
                        std::initializer_list<std::pair<const char *, const char *>> edges);

// The smallest valid pipeline: data (Fashion-MNIST) -> fc (linear) -> loss (cross entropy) -> opt (SGD),
// with data.labels -> loss.target. validateGraph reports nothing at all for it.
ty::PipelineGraph minimalGraph();
// minimalGraph() with training settings, as a preset named "minimal".
ty::Preset minimalPreset();

// Removes a node and every edge touching it.
void removeNode(ty::PipelineGraph *graph, const QString &id);
// Removes the edge `from` -> `to`; false if there was none.
bool removeEdge(ty::PipelineGraph *graph, const QString &from, const QString &to);

// One line per issue, for QVERIFY2 messages.
QString dump(const ty::Issues &issues);
ty::Issues errorsOf(const ty::Issues &issues);
// Issues whose message contains `text`.
ty::Issues withMessage(const ty::Issues &issues, const QString &text);

// One runner per test class, called by test_core_main.cpp; each returns QTest::qExec's failure count.
int runCommonTests(int argc, char **argv);
int runBlockRegistryTests(int argc, char **argv);
int runBlockPartsTests(int argc, char **argv);
int runParamValuesTests(int argc, char **argv);
int runPipelineGraphTests(int argc, char **argv);
int runGraphValidationTests(int argc, char **argv);
int runGraphOrderTests(int argc, char **argv);
int runPresetFormatTests(int argc, char **argv);
int runPresetOverridesTests(int argc, char **argv);
int runPresetDiffTests(int argc, char **argv);
int runEvaluationScoresTests(int argc, char **argv);
int runMemoryEstimateTests(int argc, char **argv);

} // namespace tytest
