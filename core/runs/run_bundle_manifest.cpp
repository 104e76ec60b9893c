#include "run_bundle_manifest.h"

#include "run_bundle_blocks.h"
#include "run_bundle_columns.h"
#include "run_bundle_file.h"
#include "sha256.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>

#include <cmath>
#include <iterator>
#include <map>

namespace ty {

namespace {

constexpr double kLargestExactInteger = 9007199254740992.0;  // 2^53

class ManifestReader {
public:
    explicit ManifestReader(const RunBundleFile &file) : m_file(file) {}

    Result<BundleManifest> read();

private:
    Error fail(const QString &where, const QString &message) const
    {
        return Error::inFile(m_file.path(), message, where);
    }
    Error located(Error error) const
    {
        error.file = m_file.path();
        return error;
    }
    Result<qint64> integer(const QJsonObject &object, const QString &key, const QString &where, qint64 minimum) const;
    Result<QJsonArray> array(const QJsonObject &object, const QString &key, const QString &where) const;
    Result<QJsonObject> objectAt(const QJsonArray &array, int index, const QString &where) const;
    Result<QString> optionalUuid(const QJsonObject &object, const QString &key, const QString &where) const;
    Status checkKeys(const QJsonObject &object, const QStringList &keys, const QString &where) const;
    Result<QByteArray> blockOf(const QJsonObject &object, const QString &where, qint64 recordBytes, qint64 *rows) const;

    Result<BundleSweep> sweep(const QJsonObject &object, const QString &where) const;
    Result<BundleRun> run(const QJsonObject &object, const QString &where) const;
    Status runRows(const QJsonObject &object, const QString &where, BundleRun &run) const;
    Status runCheckpoints(const QJsonObject &object, const QString &where, BundleRun &run) const;
    Status runEvaluations(const QJsonObject &object, const QString &where, BundleRun &run) const;

    const RunBundleFile &m_file;
    mutable std::map<qint64, std::pair<qint64, QString>> m_blocks;  // blocks read: offset -> end, whose
};

Result<qint64> ManifestReader::integer(const QJsonObject &object, const QString &key, const QString &where, qint64 minimum) const
{
    const QJsonValue value = object.value(key);
    const double number = value.toDouble(std::nan(""));
    if (!value.isDouble() || std::floor(number) != number || number < double(minimum) || number > kLargestExactInteger)
        return fail(where + QLatin1Char('.') + key, QStringLiteral("expected an integer of at least %1").arg(minimum));
    return qint64(number);
}

Result<QJsonArray> ManifestReader::array(const QJsonObject &object, const QString &key, const QString &where) const
{
    if (!object.value(key).isArray())
        return fail(where + QLatin1Char('.') + key, QStringLiteral("expected an array"));
    return object.value(key).toArray();
}

Result<QJsonObject> ManifestReader::objectAt(const QJsonArray &array, int index, const QString &where) const
{
    if (!array.at(index).isObject())
        return fail(QStringLiteral("%1[%2]").arg(where).arg(index), QStringLiteral("expected an object"));
    return array.at(index).toObject();
}

Result<QString> ManifestReader::optionalUuid(const QJsonObject &object, const QString &key, const QString &where) const
{
    const QJsonValue value = object.value(key);
    if (!object.contains(key))
        return fail(where + QLatin1Char('.') + key, QStringLiteral("missing"));
    if (value.isNull())
        return QString();
    if (!value.isString() || !isUuidText(value.toString()))
        return fail(where + QLatin1Char('.') + key, QStringLiteral("expected a uuid or null"));
    return value.toString();
}

Status ManifestReader::checkKeys(const QJsonObject &object, const QStringList &keys, const QString &where) const
{
    for (const QString &key : keys) {
        if (!object.contains(key))
            return fail(where + QLatin1Char('.') + key, QStringLiteral("missing"));
    }
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        if (!keys.contains(it.key()))
            return fail(where + QLatin1Char('.') + it.key(), QStringLiteral("unknown field"));
    }
    return Status::success();
}

Result<QByteArray> ManifestReader::blockOf(const QJsonObject &object, const QString &where, qint64 recordBytes, qint64 *rows) const
{
    Result<qint64> offset = integer(object, QStringLiteral("offset"), where, 0);
    if (!offset)
        return offset.error();
    const QString countKey = recordBytes > 0 ? QStringLiteral("rows") : QStringLiteral("length");
    Result<qint64> count = integer(object, countKey, where, 0);
    if (!count)
        return count.error();
    *rows = count.value();
    const double length = double(count.value()) * double(recordBytes > 0 ? recordBytes : 1);
    if (length > kLargestExactInteger)
        return fail(where + QLatin1Char('.') + countKey, QStringLiteral("too large"));
    Result<QByteArray> bytes = m_file.block(offset.value(), qint64(length), where);
    if (!bytes)
        return located(bytes.error());
    // Every block is used once: a bundle cannot make a few bytes of its own into many checkpoint files or rows.
    if (length > 0) {
        const qint64 begin = offset.value(), end = begin + qint64(length);
        auto next = m_blocks.lower_bound(begin);
        if (next != m_blocks.end() && next->first < end)
            return fail(where, QStringLiteral("its block overlaps the block of %1").arg(next->second.second));
        if (next != m_blocks.begin() && std::prev(next)->second.first > begin)
            return fail(where, QStringLiteral("its block overlaps the block of %1").arg(std::prev(next)->second.second));
        m_blocks.emplace(begin, std::make_pair(end, where));
    }
    return bytes;
}

Result<BundleSweep> ManifestReader::sweep(const QJsonObject &object, const QString &where) const
{
    BundleSweep sweep;
    Result<QVariantList> columns = bundleRowFromJson(bundleSweepColumns(), object, where, {QStringLiteral("id"), QStringLiteral("best_run_uuid")});
    if (!columns)
        return located(columns.error());
    sweep.columns = columns.value();
    sweep.uuid = object.value(QStringLiteral("uuid")).toString();
    if (!isUuidText(sweep.uuid))
        return fail(where + QStringLiteral(".uuid"), QStringLiteral("expected a uuid"));
    const QString status = object.value(QStringLiteral("status")).toString();
    if (status != QLatin1String("finished") && status != QLatin1String("stopped") && status != QLatin1String("failed"))
        return fail(where + QStringLiteral(".status"), QStringLiteral("'%1' is not the status of an ended sweep (finished, stopped, failed)").arg(status));
    const double maximize = object.value(QStringLiteral("maximize")).toDouble();
    if (maximize != 0 && maximize != 1)
        return fail(where + QStringLiteral(".maximize"), QStringLiteral("expected 0 or 1"));
    Result<qint64> id = integer(object, QStringLiteral("id"), where, 1);
    if (!id)
        return id.error();
    sweep.bundleId = id.value();
    Result<QString> best = optionalUuid(object, QStringLiteral("best_run_uuid"), where);
    if (!best)
        return best.error();
    sweep.bestRunUuid = best.value();
    return sweep;
}

Result<BundleRun> ManifestReader::run(const QJsonObject &object, const QString &where) const
{
    BundleRun run;
    const QStringList extra = {QStringLiteral("id"),     QStringLiteral("sweep_uuid"), QStringLiteral("parent_uuid"),
                               QStringLiteral("params"), QStringLiteral("tags"),       QStringLiteral("events"),
                               QStringLiteral("stages"), QStringLiteral("metrics"),    QStringLiteral("checkpoints"),
                               QStringLiteral("evaluations")};
    const QStringList optional = {QStringLiteral("kind"), QStringLiteral("result_json")};  // since schema 10
    Result<QVariantList> columns = bundleRowFromJson(bundleRunColumns(), object, where, extra + optional);
    if (!columns)
        return located(columns.error());
    run.columns = columns.value();
    for (const QString &key : extra) {
        if (!object.contains(key))
            return fail(where + QLatin1Char('.') + key, QStringLiteral("missing"));
    }
    if (object.contains(QStringLiteral("kind"))) {
        run.kind = object.value(QStringLiteral("kind")).toString();
        if (run.kind != QLatin1String(kRunKindTrain) && run.kind != QLatin1String(kRunKindLrFind))
            return fail(where + QStringLiteral(".kind"), QStringLiteral("expected \"train\" or \"lrfind\""));
    }
    const QJsonValue result = object.value(QStringLiteral("result_json"));
    if (!result.isNull() && !result.isUndefined()) {
        QJsonParseError parse;
        if (!result.isString() || !QJsonDocument::fromJson(result.toString().toUtf8(), &parse).isObject())
            return fail(where + QStringLiteral(".result_json"), QStringLiteral("expected a JSON object as text, or null"));
        run.resultJson = result.toString();
    }
    run.uuid = object.value(QStringLiteral("uuid")).toString();
    if (!isUuidText(run.uuid))
        return fail(where + QStringLiteral(".uuid"), QStringLiteral("expected a uuid"));
    run.name = object.value(QStringLiteral("name")).toString();
    const QString status = object.value(QStringLiteral("status")).toString();
    if (!runStatusFromName(status) || !runStatusIsTerminal(*runStatusFromName(status)))
        return fail(where + QStringLiteral(".status"), QStringLiteral("'%1' is not the status of an ended run").arg(status));
    Result<qint64> id = integer(object, QStringLiteral("id"), where, 1);
    if (!id)
        return id.error();
    run.bundleId = id.value();
    Result<QString> sweepUuid = optionalUuid(object, QStringLiteral("sweep_uuid"), where);
    if (!sweepUuid)
        return sweepUuid.error();
    run.sweepUuid = sweepUuid.value();
    const QJsonValue trial = object.value(QStringLiteral("sweep_trial"));
    if (run.sweepUuid.isEmpty() != trial.isNull() || (!trial.isNull() && trial.toDouble() < 0))
        return fail(where + QStringLiteral(".sweep_trial"), QStringLiteral("a trial index (>= 0) goes with a sweep_uuid, null without one"));
    Result<QString> parentUuid = optionalUuid(object, QStringLiteral("parent_uuid"), where);
    if (!parentUuid)
        return parentUuid.error();
    run.parentUuid = parentUuid.value();
    if (Status rows = runRows(object, where, run); !rows)
        return rows.error();
    return run;
}

Status ManifestReader::runRows(const QJsonObject &object, const QString &where, BundleRun &run) const
{
    if (!object.value(QStringLiteral("params")).isObject())
        return fail(where + QStringLiteral(".params"), QStringLiteral("expected an object"));
    const QJsonObject params = object.value(QStringLiteral("params")).toObject();
    for (auto it = params.constBegin(); it != params.constEnd(); ++it) {
        if (!it.value().isString() && !it.value().isNull())
            return fail(QStringLiteral("%1.params.%2").arg(where, it.key()), QStringLiteral("expected a string or null"));
        run.params << qMakePair(it.key(), it.value().isNull() ? QVariant() : QVariant(it.value().toString()));
    }
    Result<QJsonArray> tags = array(object, QStringLiteral("tags"), where);
    if (!tags)
        return tags.error();
    for (int i = 0; i < tags.value().size(); ++i) {
        const QString tag = tags.value().at(i).toString();
        if (!tags.value().at(i).isString() || tag.trimmed().isEmpty() || run.tags.contains(tag))
            return fail(QStringLiteral("%1.tags[%2]").arg(where).arg(i), QStringLiteral("expected a tag (a non-empty string, once)"));
        run.tags << tag;
    }
    Result<QJsonArray> events = array(object, QStringLiteral("events"), where);
    if (!events)
        return events.error();
    for (int i = 0; i < events.value().size(); ++i) {
        const QString at = QStringLiteral("%1.events[%2]").arg(where).arg(i);
        Result<QJsonObject> event = objectAt(events.value(), i, where + QStringLiteral(".events"));
        if (!event)
            return event.error();
        Result<QVariantList> values = bundleRowFromJson(bundleEventColumns(), event.value(), at, {});
        if (!values)
            return located(values.error());
        run.events << values.value();
    }
    Result<QJsonArray> stages = array(object, QStringLiteral("stages"), where);
    if (!stages)
        return stages.error();
    QSet<qint64> stageIndexes;
    for (int i = 0; i < stages.value().size(); ++i) {
        const QString at = QStringLiteral("%1.stages[%2]").arg(where).arg(i);
        Result<QJsonObject> stage = objectAt(stages.value(), i, where + QStringLiteral(".stages"));
        if (!stage)
            return stage.error();
        Result<QVariantList> values = bundleRowFromJson(bundleStageColumns(), stage.value(), at, {});
        if (!values)
            return located(values.error());
        const qint64 index = values.value().at(0).toLongLong();
        if (index < 0 || stageIndexes.contains(index))
            return fail(at + QStringLiteral(".idx"), QStringLiteral("expected a stage index >= 0, once"));
        stageIndexes.insert(index);
        run.stages << values.value();
    }

    const QString metricsAt = where + QStringLiteral(".metrics");
    if (!object.value(QStringLiteral("metrics")).isObject())
        return fail(metricsAt, QStringLiteral("expected an object"));
    const QJsonObject metrics = object.value(QStringLiteral("metrics")).toObject();
    if (Status keys = checkKeys(metrics, {QStringLiteral("names"), QStringLiteral("offset"), QStringLiteral("rows")}, metricsAt); !keys)
        return keys;
    Result<QJsonArray> names = array(metrics, QStringLiteral("names"), metricsAt);
    if (!names)
        return names.error();
    QStringList nameList;
    for (int i = 0; i < names.value().size(); ++i) {
        if (!names.value().at(i).isString() || names.value().at(i).toString().isEmpty())
            return fail(QStringLiteral("%1.names[%2]").arg(metricsAt).arg(i), QStringLiteral("expected a metric name"));
        nameList << names.value().at(i).toString();
    }
    qint64 rows = 0;
    Result<QByteArray> bytes = blockOf(metrics, metricsAt, kBundleRowBytes, &rows);
    if (!bytes)
        return bytes.error();
    Result<std::vector<MetricPoint>> points = readBundleMetricRows(bytes.value(), rows, nameList, metricsAt);
    if (!points)
        return located(points.error());
    run.metrics = std::move(points).value();

    if (Status checkpoints = runCheckpoints(object, where, run); !checkpoints)
        return checkpoints;
    return runEvaluations(object, where, run);
}

Status ManifestReader::runCheckpoints(const QJsonObject &object, const QString &where, BundleRun &run) const
{
    static const QRegularExpression fileName(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$"));
    static const QRegularExpression sha256(QStringLiteral("^[0-9a-f]{64}$"));
    Result<QJsonArray> checkpoints = array(object, QStringLiteral("checkpoints"), where);
    if (!checkpoints)
        return checkpoints.error();
    QSet<QString> files;
    for (int i = 0; i < checkpoints.value().size(); ++i) {
        const QString at = QStringLiteral("%1.checkpoints[%2]").arg(where).arg(i);
        Result<QJsonObject> checkpoint = objectAt(checkpoints.value(), i, where + QStringLiteral(".checkpoints"));
        if (!checkpoint)
            return checkpoint.error();
        BundleCheckpoint parsed;
        Result<QVariantList> values = bundleRowFromJson(bundleCheckpointColumns(), checkpoint.value(), at,
                                                        {QStringLiteral("file"), QStringLiteral("offset"), QStringLiteral("length")});
        if (!values)
            return located(values.error());
        parsed.columns = values.value();
        parsed.file = checkpoint.value().value(QStringLiteral("file")).toString();
        if (!fileName.match(parsed.file).hasMatch() || parsed.file.contains(QLatin1String("..")) || files.contains(parsed.file))
            return fail(at + QStringLiteral(".file"), QStringLiteral("expected a plain file name, once per run"));
        files.insert(parsed.file);
        const QString recorded = checkpoint.value().value(QStringLiteral("sha256")).toString();
        if (!sha256.match(recorded).hasMatch())
            return fail(at + QStringLiteral(".sha256"), QStringLiteral("expected 64 lowercase hex digits"));
        qint64 length = 0;
        Result<QByteArray> bytes = blockOf(checkpoint.value(), at, 0, &length);
        if (!bytes)
            return bytes.error();
        if (Sha256::hexHash(bytes.value()) != recorded)
            return fail(at, QStringLiteral("the checkpoint %1 does not match its sha256").arg(parsed.file));
        parsed.bytes = bytes.value();
        run.checkpoints << parsed;
    }
    return Status::success();
}

Status ManifestReader::runEvaluations(const QJsonObject &object, const QString &where, BundleRun &run) const
{
    Result<QJsonArray> evaluations = array(object, QStringLiteral("evaluations"), where);
    if (!evaluations)
        return evaluations.error();
    QSet<QString> keys;
    for (int i = 0; i < evaluations.value().size(); ++i) {
        const QString at = QStringLiteral("%1.evaluations[%2]").arg(where).arg(i);
        Result<QJsonObject> evaluation = objectAt(evaluations.value(), i, where + QStringLiteral(".evaluations"));
        if (!evaluation)
            return evaluation.error();
        BundleEvaluation parsed;
        Result<QVariantList> values = bundleRowFromJson(bundleEvaluationColumns(), evaluation.value(), at, {QStringLiteral("samples")});
        if (!values)
            return located(values.error());
        parsed.columns = values.value();
        const QString key = parsed.columns.at(0).toString() + QLatin1Char('@') + parsed.columns.at(1).toString();
        if (keys.contains(key))
            return fail(at, QStringLiteral("a second evaluation of the same split and checkpoint step"));
        keys.insert(key);
        const QString samplesAt = at + QStringLiteral(".samples");
        if (!evaluation.value().value(QStringLiteral("samples")).isObject())
            return fail(samplesAt, QStringLiteral("expected an object"));
        const QJsonObject samples = evaluation.value().value(QStringLiteral("samples")).toObject();
        if (Status known = checkKeys(samples, {QStringLiteral("offset"), QStringLiteral("rows")}, samplesAt); !known)
            return known;
        qint64 rows = 0;
        Result<QByteArray> bytes = blockOf(samples, samplesAt, kBundleRowBytes, &rows);
        if (!bytes)
            return bytes.error();
        Result<std::vector<EvaluationSampleRow>> decoded = readBundleSampleRows(bytes.value(), rows, samplesAt);
        if (!decoded)
            return located(decoded.error());
        parsed.samples = std::move(decoded).value();
        QSet<qint64> indexes;
        for (const EvaluationSampleRow &sample : parsed.samples) {
            if (indexes.contains(sample.index))
                return fail(samplesAt, QStringLiteral("sample %1 is listed twice").arg(sample.index));
            indexes.insert(sample.index);
        }
        run.evaluations << parsed;
    }
    return Status::success();
}

Result<BundleManifest> ManifestReader::read()
{
    const QJsonObject manifest = m_file.manifest();
    if (manifest.value(QStringLiteral("format")).toString() != QLatin1String("trainyard-run-bundle"))
        return fail(QStringLiteral("format"), QStringLiteral("not a Trainyard run bundle (format is not \"trainyard-run-bundle\")"));
    Result<qint64> version = integer(manifest, QStringLiteral("version"), QStringLiteral("manifest"), 1);
    if (!version)
        return version.error();
    if (version.value() > kRunBundleVersion)
        return fail(QStringLiteral("version"), QStringLiteral("bundle version %1 is newer than this build reads (%2)").arg(version.value()).arg(kRunBundleVersion));

    BundleManifest parsed;
    Result<QJsonArray> sweeps = array(manifest, QStringLiteral("sweeps"), QStringLiteral("manifest"));
    if (!sweeps)
        return sweeps.error();
    QSet<QString> sweepUuids;
    for (int i = 0; i < sweeps.value().size(); ++i) {
        const QString where = QStringLiteral("sweeps[%1]").arg(i);
        Result<QJsonObject> object = objectAt(sweeps.value(), i, QStringLiteral("sweeps"));
        if (!object)
            return object.error();
        Result<BundleSweep> sweep = this->sweep(object.value(), where);
        if (!sweep)
            return sweep.error();
        if (sweepUuids.contains(sweep.value().uuid))
            return fail(where + QStringLiteral(".uuid"), QStringLiteral("a second sweep with the uuid %1").arg(sweep.value().uuid));
        sweepUuids.insert(sweep.value().uuid);
        parsed.sweeps << sweep.value();
    }
    Result<QJsonArray> runs = array(manifest, QStringLiteral("runs"), QStringLiteral("manifest"));
    if (!runs)
        return runs.error();
    QSet<QString> runUuids;
    QSet<QString> trials;
    for (int i = 0; i < runs.value().size(); ++i) {
        const QString where = QStringLiteral("runs[%1]").arg(i);
        Result<QJsonObject> object = objectAt(runs.value(), i, QStringLiteral("runs"));
        if (!object)
            return object.error();
        Result<BundleRun> run = this->run(object.value(), where);
        if (!run)
            return run.error();
        if (runUuids.contains(run.value().uuid))
            return fail(where + QStringLiteral(".uuid"), QStringLiteral("a second run with the uuid %1").arg(run.value().uuid));
        runUuids.insert(run.value().uuid);
        if (!run.value().sweepUuid.isEmpty()) {
            if (!sweepUuids.contains(run.value().sweepUuid))
                return fail(where + QStringLiteral(".sweep_uuid"), QStringLiteral("names a sweep that is not in the bundle"));
            const QString trial = run.value().sweepUuid + QLatin1Char('#') + object.value().value(QStringLiteral("sweep_trial")).toVariant().toString();
            if (trials.contains(trial))
                return fail(where + QStringLiteral(".sweep_trial"), QStringLiteral("a second run for the same trial of its sweep"));
            trials.insert(trial);
        }
        parsed.runs << std::move(run).value();
    }
    return parsed;
}

} // namespace

bool isUuidText(const QString &text)
{
    static const QRegularExpression uuid(QStringLiteral("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"));
    return uuid.match(text).hasMatch();
}

Result<BundleManifest> readBundleManifest(const RunBundleFile &file)
{
    return ManifestReader(file).read();
}

} // namespace ty
