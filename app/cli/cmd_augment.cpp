// trainyard-cli augment PRESET --node ID [--seed S] [--sample I] [--count N] [--overlay FILE]... [--set KEY=VALUE]... [--json]
// trainyard-cli augment --serve: the same as a long-lived worker, one JSON request and reply a line (augment_serve.h).
// What the transform blocks up to node ID do to one training sample: N variants (16 unless told) through the code and
// random generator training uses (augmentation_preview.h). The app's inspector shows them on a transform node.

#include "augment_serve.h"
#include "commands.h"
#include "training_module.h"

#include <QJsonArray>
#include <QJsonObject>

#include <cmath>
#include <iostream>
#include <limits>

namespace ty::cli {

namespace {

const char kAugmentUsage[] = "usage: trainyard-cli augment PRESET --node ID [--seed S] [--sample I] [--count N] [--overlay FILE]... "
                             "[--set KEY=VALUE]... [--json]\n"
                             "       trainyard-cli augment --serve\n";

QString shapeText(const std::vector<int64_t> &shape)
{
    QStringList parts;
    for (int64_t d : shape)
        parts << QString::number(d);
    return parts.join(QLatin1Char('x'));
}

QJsonArray numbers(const std::vector<float> &values)
{
    QJsonArray array;
    for (float v : values)
        array.append(double(v));
    return array;
}

QJsonArray shapeJson(const std::vector<int64_t> &shape)
{
    QJsonArray array;
    for (int64_t d : shape)
        array.append(qint64(d));
    return array;
}

// The mean absolute difference of a variant from the sample, when both have the same size; NaN otherwise.
double meanDifference(const std::vector<float> &a, const std::vector<float> &b)
{
    if (a.size() != b.size() || a.empty())
        return qQNaN();
    double sum = 0;
    for (size_t i = 0; i < a.size(); ++i)
        sum += std::abs(double(a[i]) - double(b[i]));
    return sum / double(a.size());
}

// A whole number of --option within [low, high]; an error message naming it otherwise.
bool wholeOption(const Args &args, const char *name, qint64 low, qint64 high, qint64 *value, Io &io)
{
    const QString key = QString::fromLatin1(name);
    if (!args.options.contains(key))
        return true;
    bool ok = false;
    const qint64 parsed = args.option(key).toLongLong(&ok);
    if (!ok || parsed < low || parsed > high) {
        io.err << "error: --" << key << " must be a whole number from " << low << " to " << high << " (got "
               << args.option(key) << ")\n" << kAugmentUsage;
        return false;
    }
    *value = parsed;
    return true;
}

} // namespace

QJsonObject augmentationPreviewJson(const AugmentationPreviewOptions &options, const AugmentationPreview &preview)
{
    QJsonArray variants;
    for (const std::vector<float> &variant : preview.variants)
        variants.append(numbers(variant));
    return QJsonObject{{QStringLiteral("node"), options.nodeId},
                       {QStringLiteral("seed"), QString::number(options.seed)},
                       {QStringLiteral("sample"), qint64(options.sample)},
                       {QStringLiteral("transforms"), QJsonArray::fromStringList(preview.transforms)},
                       {QStringLiteral("sample_shape"), shapeJson(preview.sampleShape)},
                       {QStringLiteral("variant_shape"), shapeJson(preview.variantShape)},
                       {QStringLiteral("original"), numbers(preview.original)},
                       {QStringLiteral("variants"), variants}};
}

int augmentCommand(const QStringList &arguments, Io &io)
{
    const Args args = parseArgs(arguments, {QStringLiteral("node"), QStringLiteral("seed"), QStringLiteral("sample"), QStringLiteral("count"),
                                            QStringLiteral("overlay")},
                                {QStringLiteral("json"), QStringLiteral("serve")});
    if (args.error.isEmpty() && args.flag(QStringLiteral("serve"))) {
        if (!args.positionals.isEmpty() || !args.options.isEmpty() || !args.sets.isEmpty() || !args.overlays.isEmpty() || args.flag(QStringLiteral("json"))) {
            io.err << "error: augment --serve takes no other arguments: each request names its preset, node and seed\n" << kAugmentUsage;
            return BadInput;
        }
        return serveAugmentRequests(std::cin, io);
    }
    if (!args.error.isEmpty() || args.positionals.size() != 1 || args.option(QStringLiteral("node")).isEmpty()) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n")) << kAugmentUsage;
        return BadInput;
    }
    AugmentationPreviewOptions options;
    options.nodeId = args.option(QStringLiteral("node"));
    qint64 seed = 0, sample = 0, count = options.count;
    if (!wholeOption(args, "seed", 0, std::numeric_limits<qint64>::max(), &seed, io) || !wholeOption(args, "sample", 0, std::numeric_limits<qint64>::max(), &sample, io)
        || !wholeOption(args, "count", 1, 256, &count, io))
        return BadInput;
    options.seed = quint64(seed);
    options.sample = sample;
    options.count = int(count);
    Preset preset;
    if (!loadPresetWithOverrides(args.positionals.first(), args, &preset, io))
        return BadInput;
    const Result<AugmentationPreview> preview = previewAugmentation(preset, options);
    if (!preview) {
        Error error = preview.error();
        if (error.file.isEmpty())
            error.file = args.positionals.first();
        printError(io, error);
        return BadInput;
    }
    const AugmentationPreview &p = preview.value();
    if (args.flag(QStringLiteral("json"))) {
        printJson(io, augmentationPreviewJson(options, p));
        return Success;
    }
    io.out << "training sample " << options.sample << " (" << shapeText(p.sampleShape) << ") through "
           << p.transforms.join(QStringLiteral(", ")) << ", seed " << options.seed << ": " << p.variants.size() << " variants of "
           << shapeText(p.variantShape) << "\n";
    io.out << QStringLiteral("%1  %2\n").arg(QStringLiteral("variant"), 7).arg(QStringLiteral("mean |difference from the sample|"));
    for (size_t i = 0; i < p.variants.size(); ++i)
        io.out << QStringLiteral("%1  %2\n").arg(i, 7).arg(meanDifference(p.variants[i], p.original), 0, 'g', 4);
    io.out.flush();
    return Success;
}

} // namespace ty::cli
