#include "init_from_source.h"

#include "file_fingerprint.h"
#include "run_checkpoints.h"
#include "training_stages.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

namespace ty::cli {

Result<std::optional<InitFromSource>> resolveInitFrom(const Preset &preset, const QString &dbPath)
{
    Issues issues;
    const std::optional<InitFrom> init = initFrom(preset, &issues);
    if (!init) {
        for (const Issue &issue : issues)
            if (issue.severity == Severity::Error) {
                return Error::atNode(issue.node, issue.message, issue.param);
            }
        return std::optional<InitFromSource>();
    }
    InitFromSource source;
    source.weights.nodes = init->nodes;
    source.weights.strict = init->strict;
    source.weights.map = init->map;
    if (init->fromRun()) {
        Result<RunCheckpoint> chosen = verifiedRunCheckpoint(dbPath, init->run, init->checkpoint, QStringLiteral("start from"));
        if (!chosen) {
            Error e = chosen.error();
            e.field = QStringLiteral("training.init_from");
            e.message = QStringLiteral("init_from: %1").arg(e.message);
            return e;
        }
        source.weights.path = chosen.value().checkpoint.path;
        source.parent = QJsonObject{{QStringLiteral("run"), init->run},
                                    {QStringLiteral("run_name"), chosen.value().run.name},
                                    {QStringLiteral("checkpoint"), init->checkpoint},
                                    {QStringLiteral("checkpoint_step"), chosen.value().checkpoint.step},
                                    {QStringLiteral("sha256"), chosen.value().checkpoint.sha256}};
    } else {
        const Result<QString> sha256 = fingerprintFiles({init->file});
        if (!sha256)
            return sha256.error();
        source.weights.path = init->file;
        source.parent = QJsonObject{{QStringLiteral("file"), init->file}, {QStringLiteral("sha256"), sha256.value()}};
    }
    if (!init->nodes.isEmpty())
        source.parent.insert(QStringLiteral("nodes"), QJsonArray::fromStringList(init->nodes));
    if (init->map.given())
        source.parent.insert(QStringLiteral("map"), init->map.toJson());
    return std::optional<InitFromSource>(source);
}

Status setInitFromOption(Preset *preset, const QString &value)
{
    QJsonObject init = preset->training.value(QStringLiteral("init_from")).toObject();
    init.remove(QStringLiteral("run"));
    init.remove(QStringLiteral("checkpoint"));
    init.remove(QStringLiteral("file"));
    static const QRegularExpression runPattern(QStringLiteral("^(\\d+)(?::(last|best|\\d+))?$"));
    const QRegularExpressionMatch run = runPattern.match(value);
    if (run.hasMatch()) {
        init.insert(QStringLiteral("run"), run.captured(1).toLongLong());
        const QString checkpoint = run.captured(2);
        if (checkpoint == QStringLiteral("last") || checkpoint == QStringLiteral("best"))
            init.insert(QStringLiteral("checkpoint"), checkpoint);
        else if (!checkpoint.isEmpty())
            init.insert(QStringLiteral("checkpoint"), checkpoint.toLongLong());
    } else if (!value.isEmpty()) {
        init.insert(QStringLiteral("file"), QDir::current().absoluteFilePath(value));
    } else {
        return Error::atField(QStringLiteral("--init-from"), QStringLiteral("--init-from: expected RUN, RUN:best, RUN:last, RUN:STEP or a weights file"));
    }
    preset->training.insert(QStringLiteral("init_from"), init);
    return Status::success();
}

Status setInitMapOption(Preset *preset, const QString &value)
{
    QJsonValue map = value;
    if (value.trimmed().startsWith(QLatin1Char('{'))) {
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(value.toUtf8(), &error);
        if (error.error != QJsonParseError::NoError || !doc.isObject())
            return Error::atField(QStringLiteral("--init-map"),
                                  QStringLiteral("--init-map: not a JSON object of tensor names (%1); expected e.g. {\"fc1.weight\": \"0.weight\"}")
                                      .arg(error.error != QJsonParseError::NoError ? error.errorString() : QStringLiteral("not an object")));
        map = doc.object();
    } else if (value.isEmpty()) {
        return Error::atField(QStringLiteral("--init-map"), QStringLiteral("--init-map: expected a convention such as sequential or auto, "
                                                                           "or a JSON object of tensor names"));
    }
    QJsonObject init = preset->training.value(QStringLiteral("init_from")).toObject();
    init.insert(QStringLiteral("map"), map);
    preset->training.insert(QStringLiteral("init_from"), init);
    return Status::success();
}

} // namespace ty::cli
