#include "run_bundle_export.h"

#include "run_bundle_blocks.h"
#include "run_bundle_columns.h"
#include "run_bundle_file.h"
#include "run_liveness.h"
#include "run_records.h"
#include "run_sqlite.h"
#include "sqlite_connection.h"
#include "version.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <type_traits>

namespace ty {

namespace {

// Calls `onRow` for each row of `statement`; the first error stops it.
template <typename OnRow>
Status eachRow(SqliteStatement &statement, const QString &what, OnRow onRow)
{
    for (;;) {
        Result<bool> row = statement.next(what);
        if (!row)
            return row.error();
        if (!row.value())
            return Status::success();
        if constexpr (std::is_same_v<decltype(onRow()), Status>) {
            if (Status done = onRow(); !done)
                return done;
        } else {
            onRow();
        }
    }
}

class BundleExporter {
public:
    BundleExporter(const RunBundleExportRequest &request, RunBundleExportReport &report) : m_request(request), m_report(report) {}

    Status run();

private:
    Status prepare(SqliteStatement &statement, const QString &sql);
    // Prepares `sql`, binds `key` to its one parameter and calls onRow(statement) for each row.
    template <typename OnRow>
    Status forRowsOf(const QString &sql, qint64 key, const QString &what, OnRow onRow)
    {
        SqliteStatement statement;
        if (Status prepared = prepare(statement, sql); !prepared)
            return prepared;
        statement.bindInt(1, key);
        return eachRow(statement, what, [&] { return onRow(statement); });
    }
    Status collectSweepTrials();
    Result<QJsonObject> sweepObject(qint64 id);
    Result<QJsonObject> runObject(qint64 id);
    Status addRunRows(qint64 id, const QString &folder, QJsonObject &object);
    Status addMetrics(qint64 id, QJsonObject &object);
    Status addCheckpoints(qint64 id, const QString &folder, QJsonObject &object);
    Status addCheckpoint(qint64 id, const QString &runFolder, SqliteStatement &row, QSet<QString> &names, QJsonArray &array);
    Status addEvaluations(qint64 id, QJsonObject &object);
    Result<QString> uuidOfRun(qint64 id);

    const RunBundleExportRequest &m_request;
    RunBundleExportReport &m_report;
    SqliteConnection m_db;
    RunBundleWriter m_writer;
    QList<qint64> m_runIds;
    QList<qint64> m_sweepIds;
};

Status BundleExporter::prepare(SqliteStatement &statement, const QString &sql)
{
    return statement.prepare(m_db, sql.toUtf8(), QStringLiteral("cannot read the runs to export"));
}

Status BundleExporter::collectSweepTrials()
{
    for (qint64 sweep : m_request.sweepIds) {
        const Status read = forRowsOf(QStringLiteral("SELECT id FROM runs WHERE sweep_id = ? ORDER BY id"), sweep,
                                      QStringLiteral("cannot read the trials of sweep %1").arg(sweep),
                                      [&](SqliteStatement &row) { m_runIds << row.intColumn(0); });
        if (!read)
            return read;
    }
    return Status::success();
}

Result<QJsonObject> BundleExporter::sweepObject(qint64 id)
{
    SqliteStatement select;
    if (Status prepared = prepare(select, QStringLiteral("SELECT id, best_run, pid, %1 FROM sweeps WHERE id = ?").arg(bundleColumnList(bundleSweepColumns())));
        !prepared)
        return prepared.error();
    select.bindInt(1, id);
    Result<bool> row = select.next(QStringLiteral("cannot read sweep %1").arg(id));
    if (!row)
        return row.error();
    if (!row.value())
        return Error(QStringLiteral("no sweep with id %1 in %2").arg(id).arg(m_request.database));
    QJsonObject object = bundleRowToJson(bundleSweepColumns(), select, 3);
    object.insert(QStringLiteral("id"), double(id));
    const qint64 bestRun = select.isNull(1) ? 0 : select.intColumn(1);
    const qint64 pid = select.intColumn(2);
    const QString host = object.value(QStringLiteral("host")).toString();
    if (object.value(QStringLiteral("status")).toString() == QLatin1String("running")) {
        // Still driven by a live process: its trials are still being written. A driver that is gone leaves the sweep
        // interrupted, which travels as stopped (it can be resumed where it is imported).
        if (host != thisHostName() || processMayBeAlive(pid))
            return Error(QStringLiteral("sweep %1 is still running (process %2 on %3): export it when it has ended")
                             .arg(id)
                             .arg(pid)
                             .arg(host));
        object.insert(QStringLiteral("status"), QStringLiteral("stopped"));
    }
    select.finalize();
    if (bestRun > 0) {
        Result<QString> uuid = uuidOfRun(bestRun);
        if (!uuid)
            return uuid.error();
        object.insert(QStringLiteral("best_run_uuid"), uuid.value().isEmpty() ? QJsonValue() : QJsonValue(uuid.value()));
    } else {
        object.insert(QStringLiteral("best_run_uuid"), QJsonValue());
    }
    return object;
}

Result<QString> BundleExporter::uuidOfRun(qint64 id)
{
    SqliteStatement select;
    if (Status prepared = prepare(select, QStringLiteral("SELECT uuid FROM runs WHERE id = ?")); !prepared)
        return prepared.error();
    select.bindInt(1, id);
    Result<bool> row = select.next(QStringLiteral("cannot read run %1").arg(id));
    if (!row)
        return row.error();
    return row.value() ? select.textColumn(0) : QString();
}

Result<QJsonObject> BundleExporter::runObject(qint64 id)
{
    SqliteStatement select;
    if (Status prepared = prepare(select, QStringLiteral("SELECT folder, sweep_id, kind, result_json, %1 FROM runs WHERE id = ?")
                                              .arg(bundleColumnList(bundleRunColumns())));
        !prepared)
        return prepared.error();
    select.bindInt(1, id);
    Result<bool> row = select.next(QStringLiteral("cannot read run %1").arg(id));
    if (!row)
        return row.error();
    if (!row.value())
        return Error(QStringLiteral("no run with id %1 in %2").arg(id).arg(m_request.database));
    QJsonObject object = bundleRowToJson(bundleRunColumns(), select, 4);
    const QString folder = select.textColumn(0);
    const qint64 sweepId = select.isNull(1) ? 0 : select.intColumn(1);
    // What the run is (since schema 10), optional in a bundle: a bundle written before reads as training runs.
    object.insert(QStringLiteral("kind"), select.textColumn(2));
    object.insert(QStringLiteral("result_json"), select.isNull(3) ? QJsonValue() : QJsonValue(select.textColumn(3)));
    select.finalize();
    const QString status = object.value(QStringLiteral("status")).toString();
    if (!runStatusFromName(status) || !runStatusIsTerminal(*runStatusFromName(status)))
        return Error(QStringLiteral("run %1 is %2: export it when it has ended").arg(id).arg(status));
    object.insert(QStringLiteral("id"), double(id));

    QJsonValue sweepUuid;
    if (sweepId > 0) {
        if (!m_sweepIds.contains(sweepId))
            m_sweepIds << sweepId;
        SqliteStatement sweep;
        if (Status prepared = prepare(sweep, QStringLiteral("SELECT uuid FROM sweeps WHERE id = ?")); !prepared)
            return prepared.error();
        sweep.bindInt(1, sweepId);
        Result<bool> found = sweep.next(QStringLiteral("cannot read sweep %1").arg(sweepId));
        if (!found)
            return found.error();
        if (found.value())
            sweepUuid = sweep.textColumn(0);
    }
    object.insert(QStringLiteral("sweep_uuid"), sweepUuid);
    if (sweepUuid.isNull())
        object.insert(QStringLiteral("sweep_trial"), QJsonValue());

    // The run it started from, by uuid: its id means nothing in another database.
    QJsonValue parentUuid;
    const QJsonObject provenance = QJsonDocument::fromJson(object.value(QStringLiteral("provenance_json")).toString().toUtf8()).object();
    const double parent = provenance.value(QStringLiteral("init_from")).toObject().value(QStringLiteral("run")).toDouble();
    if (parent >= 1) {
        Result<QString> uuid = uuidOfRun(qint64(parent));
        if (!uuid)
            return uuid.error();
        if (!uuid.value().isEmpty())
            parentUuid = uuid.value();
    }
    object.insert(QStringLiteral("parent_uuid"), parentUuid);

    if (Status rows = addRunRows(id, folder, object); !rows)
        return rows.error();
    return object;
}

Status BundleExporter::addRunRows(qint64 id, const QString &folder, QJsonObject &object)
{
    const QString what = QStringLiteral("cannot read run %1").arg(id);
    QJsonObject params;
    Status read = forRowsOf(QStringLiteral("SELECT key, value FROM run_params WHERE run_id = ? ORDER BY key"), id, what, [&](SqliteStatement &row) {
        params.insert(row.textColumn(0), row.isNull(1) ? QJsonValue() : QJsonValue(row.textColumn(1)));
    });
    QJsonArray tags, events, stages;
    if (read)
        read = forRowsOf(QStringLiteral("SELECT tag FROM run_tags WHERE run_id = ? ORDER BY tag"), id, what,
                         [&](SqliteStatement &row) { tags << row.textColumn(0); });
    if (read)
        read = forRowsOf(QStringLiteral("SELECT %1 FROM events WHERE run_id = ? ORDER BY rowid").arg(bundleColumnList(bundleEventColumns())), id, what,
                         [&](SqliteStatement &row) { events << bundleRowToJson(bundleEventColumns(), row, 0); });
    if (read)
        read = forRowsOf(QStringLiteral("SELECT %1 FROM stages WHERE run_id = ? ORDER BY idx").arg(bundleColumnList(bundleStageColumns())), id, what,
                         [&](SqliteStatement &row) { stages << bundleRowToJson(bundleStageColumns(), row, 0); });
    if (!read)
        return read;
    object.insert(QStringLiteral("params"), params);
    object.insert(QStringLiteral("tags"), tags);
    object.insert(QStringLiteral("events"), events);
    object.insert(QStringLiteral("stages"), stages);

    if (Status metrics = addMetrics(id, object); !metrics)
        return metrics;
    if (Status checkpoints = addCheckpoints(id, folder, object); !checkpoints)
        return checkpoints;
    return addEvaluations(id, object);
}

Status BundleExporter::addMetrics(qint64 id, QJsonObject &object)
{
    BundleMetricRowsWriter rows;
    const Status read = forRowsOf(QStringLiteral("SELECT name, step, epoch, time, value FROM metrics WHERE run_id = ? ORDER BY rowid"), id,
                                  QStringLiteral("cannot read the metric rows of run %1").arg(id), [&](SqliteStatement &row) {
                                      rows.add(row.textColumn(0), row.intColumn(1), int(row.intColumn(2)), row.doubleColumn(3), row.doubleColumn(4));
                                  });
    if (!read)
        return read;
    Result<qint64> offset = m_writer.addBlock(rows.bytes());
    if (!offset)
        return offset.error();
    m_report.metricRows += rows.count();
    object.insert(QStringLiteral("metrics"), QJsonObject{{QStringLiteral("names"), QJsonArray::fromStringList(rows.names())},
                                                         {QStringLiteral("offset"), double(offset.value())},
                                                         {QStringLiteral("rows"), double(rows.count())}});
    return Status::success();
}

Status BundleExporter::addCheckpoint(qint64 id, const QString &runFolder, SqliteStatement &row, QSet<QString> &names, QJsonArray &array)
{
    const QString path = row.textColumn(0);
    const QString name = QFileInfo(path).fileName();
    QJsonObject checkpoint = bundleRowToJson(bundleCheckpointColumns(), row, 1);
    const QString sha256 = checkpoint.value(QStringLiteral("sha256")).toString();
    const QString canonical = QFileInfo(path).canonicalFilePath();
    const QString canonicalFolder = QFileInfo(runFolder).canonicalFilePath();
    QString skip;
    if (sha256.isEmpty())
        skip = QStringLiteral("recorded without a sha256 (an older format)");
    else if (canonical.isEmpty())
        skip = QStringLiteral("file missing");
    else if (canonicalFolder.isEmpty() || !canonical.startsWith(canonicalFolder + QLatin1Char('/')))
        skip = QStringLiteral("not inside the run's folder %1").arg(runFolder);
    else if (names.contains(name))
        skip = QStringLiteral("a second checkpoint of that name");
    if (!skip.isEmpty()) {
        m_report.skipped << QStringLiteral("run %1: %2: %3").arg(id).arg(name, skip);
        return Status::success();
    }
    qint64 length = 0;
    Result<qint64> offset = m_writer.addFileBlock(path, sha256, &length);
    if (!offset)
        return offset.error();
    names.insert(name);
    checkpoint.insert(QStringLiteral("file"), name);
    checkpoint.insert(QStringLiteral("offset"), double(offset.value()));
    checkpoint.insert(QStringLiteral("length"), double(length));
    array << checkpoint;
    ++m_report.checkpoints;
    return Status::success();
}

Status BundleExporter::addCheckpoints(qint64 id, const QString &folder, QJsonObject &object)
{
    QJsonArray array;
    QSet<QString> names;
    if (m_request.withCheckpoints) {
        const Status read = forRowsOf(QStringLiteral("SELECT path, %1 FROM checkpoints WHERE run_id = ? ORDER BY step, rowid")
                                          .arg(bundleColumnList(bundleCheckpointColumns())),
                                      id, QStringLiteral("cannot read the checkpoints of run %1").arg(id),
                                      [&](SqliteStatement &row) { return addCheckpoint(id, folder, row, names, array); });
        if (!read)
            return read;
    }
    object.insert(QStringLiteral("checkpoints"), array);
    return Status::success();
}

Status BundleExporter::addEvaluations(qint64 id, QJsonObject &object)
{
    const QString what = QStringLiteral("cannot read the evaluations of run %1").arg(id);
    QJsonArray array;
    const Status read = forRowsOf(
        QStringLiteral("SELECT id, %1 FROM evaluations WHERE run_id = ? ORDER BY id").arg(bundleColumnList(bundleEvaluationColumns())), id, what,
        [&](SqliteStatement &row) -> Status {
            QJsonObject evaluation = bundleRowToJson(bundleEvaluationColumns(), row, 1);
            BundleSampleRowsWriter rows;
            const Status samples = forRowsOf(QStringLiteral("SELECT sample_index, label, predicted, confidence FROM evaluation_samples"
                                                            " WHERE evaluation_id = ? ORDER BY sample_index"),
                                             row.intColumn(0), what, [&](SqliteStatement &sample) {
                                                 rows.add(sample.intColumn(0), sample.doubleColumn(1), sample.doubleColumn(2), sample.doubleColumn(3));
                                             });
            if (!samples)
                return samples;
            Result<qint64> offset = m_writer.addBlock(rows.bytes());
            if (!offset)
                return offset.error();
            evaluation.insert(QStringLiteral("samples"), QJsonObject{{QStringLiteral("offset"), double(offset.value())},
                                                                     {QStringLiteral("rows"), double(rows.count())}});
            array << evaluation;
            ++m_report.evaluations;
            return Status::success();
        });
    if (!read)
        return read;
    object.insert(QStringLiteral("evaluations"), array);
    return Status::success();
}

Status BundleExporter::run()
{
    if (Status regular = QFileInfo(m_request.database).isFile() ? Status::success()
                                                                 : Status(Error::inFile(m_request.database, QStringLiteral("no run database there")));
        !regular)
        return regular;
    if (Status opened = m_db.openReadOnly(m_request.database); !opened)
        return opened;
    if (Status begun = m_db.exec("BEGIN", QStringLiteral("cannot read the run database")); !begun)
        return begun;
    m_runIds = m_request.runIds;
    m_sweepIds = m_request.sweepIds;
    for (qint64 sweep : m_request.sweepIds) {
        if (Result<QJsonObject> exists = sweepObject(sweep); !exists)
            return exists.error();
    }
    if (Status trials = collectSweepTrials(); !trials)
        return trials;
    std::sort(m_runIds.begin(), m_runIds.end());
    m_runIds.erase(std::unique(m_runIds.begin(), m_runIds.end()), m_runIds.end());
    if (m_runIds.isEmpty() && m_sweepIds.isEmpty())
        return Error(QStringLiteral("nothing to export: no runs or sweeps given"));

    if (Status opened = m_writer.open(m_request.bundle); !opened)
        return opened;
    QJsonArray runs;
    for (qint64 id : std::as_const(m_runIds)) {
        Result<QJsonObject> run = runObject(id);
        if (!run)
            return run.error();
        runs << run.value();
    }
    std::sort(m_sweepIds.begin(), m_sweepIds.end());
    QJsonArray sweeps;
    for (qint64 id : std::as_const(m_sweepIds)) {
        Result<QJsonObject> sweep = sweepObject(id);
        if (!sweep)
            return sweep.error();
        sweeps << sweep.value();
    }
    m_db.exec("COMMIT", QStringLiteral("cannot end the read"));

    const QJsonObject manifest{{QStringLiteral("format"), QStringLiteral("trainyard-run-bundle")},
                               {QStringLiteral("version"), double(kRunBundleVersion)},
                               {QStringLiteral("created_at"), runDbNow()},
                               {QStringLiteral("app_version"), appVersion()},
                               {QStringLiteral("host"), thisHostName()},
                               {QStringLiteral("sweeps"), sweeps},
                               {QStringLiteral("runs"), runs}};
    if (Status finished = m_writer.finish(manifest); !finished)
        return finished;
    m_report.runIds = m_runIds;
    m_report.sweepIds = m_sweepIds;
    m_report.bytes = QFileInfo(m_request.bundle).size();
    return Status::success();
}

} // namespace

Result<RunBundleExportReport> exportRunBundle(const RunBundleExportRequest &request)
{
    RunBundleExportReport report;
    BundleExporter exporter(request, report);
    if (Status done = exporter.run(); !done)
        return done.error();
    return report;
}

} // namespace ty
