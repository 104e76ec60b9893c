#include "run_bundle_import.h"

#include "regular_file.h"
#include "run_bundle_columns.h"
#include "run_bundle_file.h"
#include "run_bundle_manifest.h"
#include "run_database.h"
#include "run_writer_metrics.h"
#include "sqlite_connection.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>

namespace ty {

int RunBundleImportReport::runsAdded() const
{
    return int(std::count_if(runs.cbegin(), runs.cend(), [](const Item &item) { return item.added; }));
}

int RunBundleImportReport::sweepsAdded() const
{
    return int(std::count_if(sweeps.cbegin(), sweeps.cend(), [](const Item &item) { return item.added; }));
}

namespace {

class BundleImporter {
public:
    BundleImporter(RunDatabase &db, const BundleManifest &manifest, RunBundleImportReport &report)
        : m_db(db), m_manifest(manifest), m_report(report)
    {
    }
    ~BundleImporter() { removeWrittenFolders(); }

    Status run();

private:
    Status prepare(SqliteStatement &statement, const QString &sql)
    {
        return statement.prepare(m_sql, sql.toUtf8(), QStringLiteral("cannot import into the run database"));
    }
    Result<qint64> lookUp(const QString &sql, const QVariant &key);
    Result<qint64> highestId(const char *table);
    Status planIds();
    Status checkTrials();
    Status insertSweeps();
    Status insertRun(const BundleRun &run, qint64 id);
    Status insertRunRows(const BundleRun &run, qint64 id);
    Status writeCheckpoints(const BundleRun &run, qint64 id);
    Status linkBestRuns();
    QVariantList runColumns(const BundleRun &run) const;
    void removeWrittenFolders();

    RunDatabase &m_db;
    const BundleManifest &m_manifest;
    RunBundleImportReport &m_report;
    SqliteConnection m_sql;
    QHash<QString, qint64> m_runIds;      // bundle run uuid -> id here (added or already here)
    QHash<QString, qint64> m_sweepIds;    // bundle sweep uuid -> id here
    QSet<QString> m_addedRuns, m_addedSweeps;
    QStringList m_writtenFolders;         // run folders this import created, removed unless it commits
    bool m_committed = false;
};

Result<qint64> BundleImporter::lookUp(const QString &sql, const QVariant &key)
{
    SqliteStatement select;
    if (Status prepared = prepare(select, sql); !prepared)
        return prepared.error();
    bindBundleRow(select, 1, {key});
    Result<bool> row = select.next(QStringLiteral("cannot read the run database"));
    if (!row)
        return row.error();
    return row.value() ? select.intColumn(0) : qint64(0);
}

Result<qint64> BundleImporter::highestId(const char *table)
{
    // Ids AUTOINCREMENT hands out are above every id ever used, deleted ones included.
    Result<qint64> used = lookUp(QStringLiteral("SELECT max(id) FROM %1").arg(QLatin1String(table)), QVariant());
    Result<qint64> sequence = lookUp(QStringLiteral("SELECT seq FROM sqlite_sequence WHERE name = ?"), QVariant(QString::fromLatin1(table)));
    if (!used)
        return used.error();
    if (!sequence)
        return sequence.error();
    return std::max(used.value(), sequence.value());
}

Status BundleImporter::planIds()
{
    Result<qint64> highestSweep = highestId("sweeps");
    if (!highestSweep)
        return highestSweep.error();
    qint64 nextSweep = highestSweep.value();
    QSet<qint64> takenSweeps;
    for (const BundleSweep &sweep : m_manifest.sweeps) {
        Result<qint64> existing = lookUp(QStringLiteral("SELECT id FROM sweeps WHERE uuid = ?"), sweep.uuid);
        if (!existing)
            return existing.error();
        qint64 id = existing.value();
        if (id == 0) {
            Result<qint64> clash = lookUp(QStringLiteral("SELECT id FROM sweeps WHERE id = ?"), sweep.bundleId);
            if (!clash)
                return clash.error();
            id = clash.value() == 0 && !takenSweeps.contains(sweep.bundleId) ? sweep.bundleId : 0;
            if (id == 0) {
                do
                    ++nextSweep;
                while (takenSweeps.contains(nextSweep));
                id = nextSweep;
            }
            takenSweeps.insert(id);
            m_addedSweeps.insert(sweep.uuid);
        }
        m_sweepIds.insert(sweep.uuid, id);
        m_report.sweeps << RunBundleImportReport::Item{sweep.bundleId, id, sweep.uuid, sweep.columns.at(1).toString(), id != existing.value()};
    }

    Result<qint64> highestRun = highestId("runs");
    if (!highestRun)
        return highestRun.error();
    qint64 nextRun = highestRun.value();
    QSet<qint64> takenRuns;
    // A run folder left behind by a deleted run is not reused: its files are not this run's.
    auto freeId = [&](qint64 id) -> Result<bool> {
        Result<qint64> clash = lookUp(QStringLiteral("SELECT id FROM runs WHERE id = ?"), id);
        if (!clash)
            return clash.error();
        return clash.value() == 0 && !takenRuns.contains(id) && !QFileInfo::exists(m_db.runFolder(id));
    };
    for (const BundleRun &run : m_manifest.runs) {
        Result<qint64> existing = lookUp(QStringLiteral("SELECT id FROM runs WHERE uuid = ?"), run.uuid);
        if (!existing)
            return existing.error();
        qint64 id = existing.value();
        if (id == 0) {
            Result<bool> keep = freeId(run.bundleId);
            if (!keep)
                return keep.error();
            if (keep.value()) {
                id = run.bundleId;
            } else {
                for (;;) {
                    Result<bool> free = freeId(++nextRun);
                    if (!free)
                        return free.error();
                    if (free.value())
                        break;
                }
                id = nextRun;
            }
            takenRuns.insert(id);
            m_addedRuns.insert(run.uuid);
        }
        m_runIds.insert(run.uuid, id);
        m_report.runs << RunBundleImportReport::Item{run.bundleId, id, run.uuid, run.name, id != existing.value()};
    }
    return Status::success();
}

Status BundleImporter::checkTrials()
{
    // A trial held here by another run (not this bundle's) cannot take a second run.
    for (const BundleRun &run : m_manifest.runs) {
        if (run.sweepUuid.isEmpty() || !m_addedRuns.contains(run.uuid) || m_addedSweeps.contains(run.sweepUuid))
            continue;
        const qint64 sweep = m_sweepIds.value(run.sweepUuid);
        const qint64 trial = run.columns.at(bundleColumnIndex(bundleRunColumns(), "sweep_trial")).toLongLong();
        SqliteStatement select;
        if (Status prepared = prepare(select, QStringLiteral("SELECT id FROM runs WHERE sweep_id = ? AND sweep_trial = ?")); !prepared)
            return prepared;
        select.bindInt(1, sweep);
        select.bindInt(2, trial);
        Result<bool> row = select.next(QStringLiteral("cannot read the run database"));
        if (!row)
            return row.error();
        if (row.value())
            return Error(QStringLiteral("run %1 (%2) is trial %3 of sweep %4, which run %5 already holds in %6")
                             .arg(run.bundleId)
                             .arg(run.uuid)
                             .arg(trial)
                             .arg(sweep)
                             .arg(select.intColumn(0))
                             .arg(m_db.path()));
    }
    return Status::success();
}

Status BundleImporter::insertSweeps()
{
    SqliteStatement insert;
    if (Status prepared = prepare(insert, QStringLiteral("INSERT INTO sweeps (id, %1) VALUES (?%2)")
                                              .arg(bundleColumnList(bundleSweepColumns()), QStringLiteral(", ?").repeated(bundleSweepColumns().size())));
        !prepared)
        return prepared;
    for (const BundleSweep &sweep : m_manifest.sweeps) {
        if (!m_addedSweeps.contains(sweep.uuid))
            continue;
        insert.bindInt(1, m_sweepIds.value(sweep.uuid));
        bindBundleRow(insert, 2, sweep.columns);
        if (Status done = insert.run(QStringLiteral("cannot add sweep %1").arg(sweep.uuid)); !done)
            return done;
    }
    return Status::success();
}

QVariantList BundleImporter::runColumns(const BundleRun &run) const
{
    QVariantList columns = run.columns;
    if (run.parentUuid.isEmpty())
        return columns;
    // The run it started from: its id here, when it is here; else only its uuid (an id would name another run).
    const int index = bundleColumnIndex(bundleRunColumns(), "provenance_json");
    QJsonObject provenance = QJsonDocument::fromJson(columns.at(index).toString().toUtf8()).object();
    QJsonObject initFrom = provenance.value(QStringLiteral("init_from")).toObject();
    if (initFrom.isEmpty())
        return columns;
    const qint64 parent = m_runIds.value(run.parentUuid);
    if (parent > 0) {
        initFrom.insert(QStringLiteral("run"), double(parent));
    } else {
        initFrom.remove(QStringLiteral("run"));
        initFrom.insert(QStringLiteral("run_uuid"), run.parentUuid);
    }
    provenance.insert(QStringLiteral("init_from"), initFrom);
    columns[index] = QString::fromUtf8(QJsonDocument(provenance).toJson(QJsonDocument::Compact));
    return columns;
}

Status BundleImporter::insertRun(const BundleRun &run, qint64 id)
{
    SqliteStatement insert;
    if (Status prepared = prepare(insert, QStringLiteral("INSERT INTO runs (id, folder, sweep_id, pid, %1) VALUES (?, ?, ?, NULL%2)")
                                              .arg(bundleColumnList(bundleRunColumns()), QStringLiteral(", ?").repeated(bundleRunColumns().size())));
        !prepared)
        return prepared;
    insert.bindInt(1, id);
    insert.bindText(2, m_db.runFolder(id));
    if (run.sweepUuid.isEmpty())
        insert.bindNull(3);
    else
        insert.bindInt(3, m_sweepIds.value(run.sweepUuid));
    bindBundleRow(insert, 4, runColumns(run));
    if (Status done = insert.run(QStringLiteral("cannot add run %1 (%2)").arg(id).arg(run.uuid)); !done)
        return done;
    SqliteStatement kind;
    if (Status prepared = prepare(kind, QStringLiteral("UPDATE runs SET kind = ?, result_json = ? WHERE id = ?")); !prepared)
        return prepared;
    kind.bindText(1, run.kind);
    if (run.resultJson.isEmpty())
        kind.bindNull(2);
    else
        kind.bindText(2, run.resultJson);
    kind.bindInt(3, id);
    if (Status done = kind.run(QStringLiteral("cannot set the kind of run %1 (%2)").arg(id).arg(run.uuid)); !done)
        return done;
    return insertRunRows(run, id);
}

Status BundleImporter::insertRunRows(const BundleRun &run, qint64 id)
{
    const QString what = QStringLiteral("cannot add the rows of run %1").arg(id);
    SqliteStatement params, tags, events, stages, evaluations, samples;
    if (Status prepared = prepare(params, QStringLiteral("INSERT INTO run_params (run_id, key, value) VALUES (?, ?, ?)")); !prepared)
        return prepared;
    for (const auto &param : run.params) {
        params.bindInt(1, id);
        params.bindText(2, param.first);
        bindBundleRow(params, 3, {param.second});
        if (Status done = params.run(what); !done)
            return done;
    }
    if (Status prepared = prepare(tags, QStringLiteral("INSERT INTO run_tags (run_id, tag) VALUES (?, ?)")); !prepared)
        return prepared;
    for (const QString &tag : run.tags) {
        tags.bindInt(1, id);
        tags.bindText(2, tag);
        if (Status done = tags.run(what); !done)
            return done;
    }
    if (Status prepared = prepare(events, QStringLiteral("INSERT INTO events (run_id, %1) VALUES (?, ?, ?, ?, ?)").arg(bundleColumnList(bundleEventColumns())));
        !prepared)
        return prepared;
    for (const QVariantList &event : run.events) {
        events.bindInt(1, id);
        bindBundleRow(events, 2, event);
        if (Status done = events.run(what); !done)
            return done;
    }
    if (Status prepared = prepare(stages, QStringLiteral("INSERT INTO stages (run_id, %1) VALUES (?%2)")
                                              .arg(bundleColumnList(bundleStageColumns()), QStringLiteral(", ?").repeated(bundleStageColumns().size())));
        !prepared)
        return prepared;
    for (const QVariantList &stage : run.stages) {
        stages.bindInt(1, id);
        bindBundleRow(stages, 2, stage);
        if (Status done = stages.run(what); !done)
            return done;
    }
    if (Status metrics = writeRunWriterMetrics(m_sql, id, run.metrics); !metrics)
        return metrics;
    m_report.metricRows += qint64(run.metrics.size());

    if (Status checkpoints = writeCheckpoints(run, id); !checkpoints)
        return checkpoints;

    if (Status prepared = prepare(evaluations, QStringLiteral("INSERT INTO evaluations (run_id, %1) VALUES (?%2)")
                                                   .arg(bundleColumnList(bundleEvaluationColumns()),
                                                        QStringLiteral(", ?").repeated(bundleEvaluationColumns().size())));
        !prepared)
        return prepared;
    if (Status prepared = prepare(samples, QStringLiteral("INSERT INTO evaluation_samples (evaluation_id, sample_index, label, predicted, confidence)"
                                                          " VALUES (?, ?, ?, ?, ?)"));
        !prepared)
        return prepared;
    for (const BundleEvaluation &evaluation : run.evaluations) {
        evaluations.bindInt(1, id);
        bindBundleRow(evaluations, 2, evaluation.columns);
        if (Status done = evaluations.run(what); !done)
            return done;
        const qint64 evaluationId = m_sql.lastInsertRowId();
        for (const EvaluationSampleRow &sample : evaluation.samples) {
            samples.bindInt(1, evaluationId);
            samples.bindInt(2, sample.index);
            samples.bindDouble(3, sample.label);
            samples.bindDouble(4, sample.predicted);
            samples.bindDouble(5, sample.confidence);
            if (Status done = samples.run(what); !done)
                return done;
        }
        ++m_report.evaluations;
    }
    return Status::success();
}

Status BundleImporter::writeCheckpoints(const BundleRun &run, qint64 id)
{
    const QString folder = m_db.runFolder(id);
    if (Status real = requireRealFolder(folder); !real)
        return real;
    if (QFileInfo::exists(folder))
        return Error(QStringLiteral("the folder %1 of run %2 exists already").arg(folder).arg(id));
    if (!QDir().mkpath(folder))
        return Error(QStringLiteral("cannot create the folder %1 of run %2").arg(folder).arg(id));
    m_writtenFolders << folder;
    if (run.checkpoints.isEmpty())
        return Status::success();
    const QString checkpoints = QDir(folder).filePath(QStringLiteral("checkpoints"));
    if (!QDir().mkpath(checkpoints))
        return Error(QStringLiteral("cannot create the folder %1 of run %2").arg(checkpoints).arg(id));
    SqliteStatement insert;
    if (Status prepared = prepare(insert, QStringLiteral("INSERT INTO checkpoints (run_id, path, %1) VALUES (?, ?%2)")
                                              .arg(bundleColumnList(bundleCheckpointColumns()),
                                                   QStringLiteral(", ?").repeated(bundleCheckpointColumns().size())));
        !prepared)
        return prepared;
    for (const BundleCheckpoint &checkpoint : run.checkpoints) {
        const QString path = QDir(checkpoints).filePath(checkpoint.file);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly) || file.write(checkpoint.bytes) != checkpoint.bytes.size() || !file.flush())
            return Error::inFile(path, QStringLiteral("cannot write the checkpoint: %1").arg(file.errorString()));
        insert.bindInt(1, id);
        insert.bindText(2, path);
        bindBundleRow(insert, 3, checkpoint.columns);
        if (Status done = insert.run(QStringLiteral("cannot record the checkpoints of run %1").arg(id)); !done)
            return done;
        ++m_report.checkpoints;
    }
    return Status::success();
}

Status BundleImporter::linkBestRuns()
{
    SqliteStatement update;
    if (Status prepared = prepare(update, QStringLiteral("UPDATE sweeps SET best_run = ? WHERE id = ?")); !prepared)
        return prepared;
    for (const BundleSweep &sweep : m_manifest.sweeps) {
        if (!m_addedSweeps.contains(sweep.uuid) || sweep.bestRunUuid.isEmpty())
            continue;
        Result<qint64> best = m_runIds.contains(sweep.bestRunUuid)
                                  ? Result<qint64>(m_runIds.value(sweep.bestRunUuid))
                                  : lookUp(QStringLiteral("SELECT id FROM runs WHERE uuid = ?"), sweep.bestRunUuid);
        if (!best)
            return best.error();
        if (best.value() == 0)
            continue;
        update.bindInt(1, best.value());
        update.bindInt(2, m_sweepIds.value(sweep.uuid));
        if (Status done = update.run(QStringLiteral("cannot link sweep %1 to its best run").arg(sweep.uuid)); !done)
            return done;
    }
    return Status::success();
}

void BundleImporter::removeWrittenFolders()
{
    if (m_committed)
        return;
    for (const QString &folder : std::as_const(m_writtenFolders))
        QDir(folder).removeRecursively();  // created by this import, so holding only what it wrote
}

Status BundleImporter::run()
{
    if (Status opened = m_sql.open(m_db.path()); !opened)
        return opened;
    SqliteWriteTransaction transaction(m_sql);
    if (Status begun = transaction.begin(); !begun)
        return begun;
    if (Status planned = planIds(); !planned)
        return planned;
    if (Status trials = checkTrials(); !trials)
        return trials;
    if (Status sweeps = insertSweeps(); !sweeps)
        return sweeps;
    for (const BundleRun &run : m_manifest.runs) {
        if (!m_addedRuns.contains(run.uuid))
            continue;
        if (Status inserted = insertRun(run, m_runIds.value(run.uuid)); !inserted)
            return inserted;
    }
    if (Status linked = linkBestRuns(); !linked)
        return linked;
    if (Status committed = transaction.commit(); !committed)
        return committed;
    m_committed = true;
    return Status::success();
}

} // namespace

Result<RunBundleImportReport> importRunBundle(const QString &databasePath, const QString &bundlePath)
{
    RunBundleFile file;
    if (Status opened = file.open(bundlePath); !opened)
        return opened.error();
    Result<BundleManifest> manifest = readBundleManifest(file);
    if (!manifest)
        return manifest.error();
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(databasePath);
    if (!db)
        return db.error();
    // Nothing is written into a damaged database.
    if (Status intact = db.value()->checkIntegrity(); !intact)
        return intact.error();
    RunBundleImportReport report;
    BundleImporter importer(*db.value(), manifest.value(), report);
    if (Status done = importer.run(); !done)
        return done.error();
    return report;
}

} // namespace ty
