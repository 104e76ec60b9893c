// Editing: a 200-node graph in PipelineDocument with its PipelineScene shown in a CanvasView. Each edit (a
// parameter mid-graph; a node added and connected) is timed until the report is published (validateNow, which
// the document otherwise runs on the next event-loop turn), and the scene's share of it (applying the report
// to every item) and the repaint separately.

#include "bench_graph.h"
#include "bench_gui_sections.h"

#include "canvas/canvas_view.h"
#include "canvas/pipeline_scene.h"
#include "document/pipeline_document.h"

#include <QUndoStack>

namespace ty::bench {

namespace {

const QString kSection = QStringLiteral("editing");

struct EditTimes {
    QList<double> toReport, scene, repaint;  // seconds
};

// Times `edit` + validateNow(); the scene hears reportChanged after `reportAt` is taken.
template <typename F>
void timeEdit(PipelineDocument &doc, double &reportAt, EditTimes &times, F edit)
{
    const double start = now();
    edit();
    doc.validateNow();
    const double published = now();
    processPendingEvents();
    const double painted = now();
    if (!doc.report().ok())
        qFatal("the benchmark edit broke the graph: %s", qPrintable(doc.report().issues.first().toString()));
    times.toReport << published - start;
    times.scene << published - reportAt;
    times.repaint << painted - published;
}

void addFigures(const QString &what, const EditTimes &times, Report &report)
{
    const double ms = median(times.toReport) * 1000;
    report.add(kSection, QStringLiteral("%1 -> report, 200 nodes (median of %2)").arg(what).arg(times.toReport.size()), ms,
               QStringLiteral("ms"), QStringLiteral("<= 50"), ms <= 50);
    report.add(kSection, QStringLiteral("%1: scene applies the report (median)").arg(what), median(times.scene) * 1000,
               QStringLiteral("ms"));
    report.add(kSection, QStringLiteral("%1: canvas repaint (median)").arg(what), median(times.repaint) * 1000, QStringLiteral("ms"));
}

} // namespace

void benchDocumentEditing(const GuiOptions &options, Report &report)
{
    std::fprintf(stderr, "editing\n");
    PipelineDocument doc;
    double reportAt = 0;
    // Connected before the scene exists, so it runs before the scene's handler.
    QObject::connect(&doc, &PipelineDocument::reportChanged, [&reportAt] { reportAt = now(); });
    doc.setPreset(twoHundredNodeGraph());
    PipelineScene scene(&doc);
    CanvasView view(&scene);
    view.resize(1280, 800);
    view.show();
    doc.validateNow();
    processPendingEvents();
    if (!doc.report().ok())
        qFatal("the 200-node benchmark graph has issues");

    const int repeats = options.quick ? 5 : 21;
    EditTimes param;
    for (int i = 0; i < repeats; ++i)
        timeEdit(doc, reportAt, param, [&] { doc.setParam(QStringLiteral("n100"), QStringLiteral("out_features"), i % 2 ? 64 : 96); });
    addFigures(QStringLiteral("setParam mid-graph"), param, report);

    EditTimes added;
    for (int i = 0; i < repeats; ++i) {
        timeEdit(doc, reportAt, added, [&] {
            const QString id = doc.addNode(QStringLiteral("layer.relu"), QPointF(2600, 800));
            doc.connectPorts({QStringLiteral("n100"), QStringLiteral("out")}, {id, QStringLiteral("in")});
        });
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        doc.validateNow();
        processPendingEvents();
    }
    addFigures(QStringLiteral("addNode + connect"), added, report);
}

} // namespace ty::bench
