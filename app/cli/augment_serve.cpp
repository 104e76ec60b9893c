#include "augment_serve.h"

#include "preset_format.h"
#include "preset_overrides.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>
#include <limits>
#include <string>

namespace ty::cli {

namespace {

QJsonObject errorReply(const QString &field, const QString &message)
{
    return QJsonObject{{QStringLiteral("error"), message}, {QStringLiteral("field"), field}};
}

// A whole number in [low, high] from a JSON number, or from a string of digits (a seed beyond 2^53).
bool wholeNumber(const QJsonValue &value, double low, double high, quint64 *out)
{
    if (value.isString()) {
        bool ok = false;
        const quint64 parsed = value.toString().toULongLong(&ok);
        if (!ok || double(parsed) < low || double(parsed) > high)
            return false;
        *out = parsed;
        return true;
    }
    const double d = value.toDouble(std::nan(""));
    if (!value.isDouble() || std::floor(d) != d || d < low || d > high)
        return false;
    *out = quint64(d);
    return true;
}

// The request's preset: inline ("preset") or read from a file ("preset_file"), with its "set" overrides applied.
Result<Preset> requestPreset(const QJsonObject &request)
{
    const bool inlined = request.contains(QStringLiteral("preset")), inFile = request.contains(QStringLiteral("preset_file"));
    if (inlined == inFile)
        return Error::atField(QStringLiteral("preset"), QStringLiteral("a request names its preset once: \"preset\" (the preset's JSON) or \"preset_file\" (a path)"));
    Result<Preset> preset = Error();
    if (inlined) {
        if (!request.value(QStringLiteral("preset")).isObject())
            return Error::atField(QStringLiteral("preset"), QStringLiteral("\"preset\" must be a preset's JSON object"));
        preset = presetFromJson(request.value(QStringLiteral("preset")).toObject(), QString());
    } else {
        const QString path = request.value(QStringLiteral("preset_file")).toString();
        if (path.isEmpty())
            return Error::atField(QStringLiteral("preset_file"), QStringLiteral("\"preset_file\" must be a preset file's path"));
        preset = loadPreset(path);
    }
    if (!preset) {
        Error e = preset.error();
        if (e.field.isEmpty())
            e.field = inlined ? QStringLiteral("preset") : QStringLiteral("preset_file");
        return e;
    }
    QStringList sets;
    const QJsonValue setValue = request.value(QStringLiteral("set"));
    if (!setValue.isUndefined() && !setValue.isArray())
        return Error::atField(QStringLiteral("set"), QStringLiteral("\"set\" must be a list of \"KEY=VALUE\" strings"));
    for (const QJsonValue &s : setValue.toArray()) {
        if (!s.isString())
            return Error::atField(QStringLiteral("set"), QStringLiteral("\"set\" must be a list of \"KEY=VALUE\" strings"));
        sets << s.toString();
    }
    Preset value = preset.value();
    if (const Status applied = applyOverrides(&value, sets); !applied) {
        Error e = applied.error();
        if (e.field.isEmpty())
            e.field = QStringLiteral("set");
        return e;
    }
    return value;
}

QJsonObject answer(AugmentationPreviewer &previewer, const QJsonDocument &document, const QJsonParseError &parseError)
{
    if (!document.isObject())
        return errorReply(QString(), parseError.error != QJsonParseError::NoError
                                         ? QStringLiteral("the request is not JSON: %1 at character %2").arg(parseError.errorString()).arg(parseError.offset)
                                         : QStringLiteral("the request must be a JSON object"));
    const QJsonObject request = document.object();
    AugmentationPreviewOptions options;
    options.nodeId = request.value(QStringLiteral("node")).toString();
    if (options.nodeId.isEmpty())
        return errorReply(QStringLiteral("node"), QStringLiteral("\"node\" must name a transform node of the preset"));
    quint64 seed = 0, sample = 0, count = quint64(options.count);
    const double maxWhole = double(std::numeric_limits<qint64>::max());
    if (request.contains(QStringLiteral("seed")) && !wholeNumber(request.value(QStringLiteral("seed")), 0, maxWhole, &seed))
        return errorReply(QStringLiteral("seed"), QStringLiteral("\"seed\" must be a whole number from 0 (a number, or a string of digits)"));
    if (request.contains(QStringLiteral("sample")) && !wholeNumber(request.value(QStringLiteral("sample")), 0, maxWhole, &sample))
        return errorReply(QStringLiteral("sample"), QStringLiteral("\"sample\" must be a whole number from 0"));
    if (request.contains(QStringLiteral("count")) && !wholeNumber(request.value(QStringLiteral("count")), 1, 256, &count))
        return errorReply(QStringLiteral("count"), QStringLiteral("\"count\" must be a whole number from 1 to 256"));
    options.seed = seed;
    options.sample = int64_t(sample);
    options.count = int(count);
    const Result<Preset> preset = requestPreset(request);
    Result<AugmentationPreview> preview = preset ? previewer.preview(preset.value(), options) : Result<AugmentationPreview>(preset.error());
    if (!preview) {
        const Error &e = preview.error();
        // The request's field at fault: the preset's parameter named, else the node asked for, else the preset.
        const QString field = !e.field.isEmpty() ? e.field : e.node == options.nodeId ? QStringLiteral("node") : QStringLiteral("preset");
        QJsonObject reply = errorReply(field, e.toString());
        if (!e.node.isEmpty())
            reply.insert(QStringLiteral("node"), e.node);
        return reply;
    }
    return augmentationPreviewJson(options, preview.value());
}

} // namespace

QJsonObject serveAugmentRequest(AugmentationPreviewer &previewer, const QByteArray &line)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(line, &parseError);
    QJsonObject reply = answer(previewer, document, parseError);
    const QJsonValue id = document.object().value(QStringLiteral("id"));
    if (!id.isUndefined())
        reply.insert(QStringLiteral("id"), id);
    reply.insert(QStringLiteral("dataset_loads"), previewer.datasetLoads());
    reply.insert(QStringLiteral("compilations"), previewer.compilations());
    return reply;
}

int serveAugmentRequests(std::istream &in, Io &io)
{
    AugmentationPreviewer previewer;
    std::string line;
    while (std::getline(in, line)) {
        const QByteArray request = QByteArray::fromStdString(line).trimmed();
        if (request.isEmpty())
            continue;
        io.out << QJsonDocument(serveAugmentRequest(previewer, request)).toJson(QJsonDocument::Compact) << '\n';
        io.out.flush();
    }
    return 0;
}

} // namespace ty::cli
