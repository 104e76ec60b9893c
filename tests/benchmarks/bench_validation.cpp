// Editing latency: validation and shape inference of a 200-node graph, and `trainyard-cli validate` start-up.

#include "bench_graph.h"
#include "bench_sections.h"
#include "preset_format.h"
#include "shape_inference.h"

#include <QProcess>

namespace ty::bench {

void benchValidation(const Options &options, Report &report)
{
    std::fprintf(stderr, "validation\n");
    const Preset preset = twoHundredNodeGraph();
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

    // Interleaved with a program that only loads LibTorch: Debian's LibTorch pulls in about 290 shared libraries
    // and registers every operator at load, half a second on this machine before main() does anything. validate
    // no longer pays it (shape inference without LibTorch, core/shapes); the floor shows what it saves.
    const auto wallTime = [](const QString &program, const QStringList &arguments) {
        QProcess process;
        const double start = now();
        process.start(program, arguments);
        process.waitForFinished(-1);
        return now() - start;
    };
    QList<double> startups, floors;
    for (int i = 0; i < (options.quick ? 3 : 7); ++i) {
        startups << wallTime(QStringLiteral(TRAINYARD_CLI),
                             {QStringLiteral("validate"), QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/fashion-mnist-mlp.trainyard.json")});
        floors << wallTime(QStringLiteral(TORCH_LOAD_FLOOR), {});
    }
    const double startup = median(startups);
    const double floor = median(floors);
    report.add(QStringLiteral("editing"), QStringLiteral("`trainyard-cli validate` of the MLP preset, wall time (median)"), startup * 1000,
               QStringLiteral("ms"), QStringLiteral("<= 500"), startup <= 0.5);
    report.add(QStringLiteral("editing"), QStringLiteral("a program that only loads LibTorch and runs one op (median)"), floor * 1000,
               QStringLiteral("ms"));
}

} // namespace ty::bench
