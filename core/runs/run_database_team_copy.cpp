// RunDatabase: the team store's local copy attached beside this database, for the app's "Both" view (docs/team.md).
// Temporary views named like the run tables shadow them for every read of this connection; the copy's runs read
// under their negated store ids. TeamRunCache gives the copy indexes on those negated ids, so that a run's rows are
// found through an index here too.

#include "run_database.h"

#include "run_sqlite.h"

#include <QSqlQuery>
#include <QStringList>

namespace ty {

namespace {

struct ShadowedTable {
    const char *name;
    bool rowidColumn;  // a rowid table whose rowid queries read (metrics by rowid, events and checkpoints in order)
};

// Every table keyed by run (or by evaluation); the others stay this database's.
const ShadowedTable kShadowedTables[] = {
    {"runs", false},        {"run_params", false},       {"metrics", true},
    {"events", true},       {"checkpoints", true},       {"run_tags", false},
    {"metric_summaries", false}, {"evaluations", false}, {"evaluation_samples", false},
    {"stages", false},
};

// The copy's evaluation ids read below every id of this database, in their order (the newest evaluation of a run
// is the one with the highest id): id - 2^50. TeamRunCache indexes the same expressions.
const char kCopiedEvaluationId[] = "%1 - 1125899906842624 AS %1";

// The run a copied run started from (the store's id, team_run_parents.h) as this view names it: the run of this
// database with its uuid when the parent was replicated from here, else the copy's run under its negated id.
const char kCopiedProvenance[] =
    "CASE WHEN NOT json_valid(provenance_json) THEN provenance_json"
    " WHEN json_type(provenance_json, '$.init_from.run') IS NULL THEN provenance_json"
    " ELSE json_set(provenance_json, '$.init_from.run', coalesce((SELECT m.id FROM main.runs m"
    " WHERE m.uuid = json_extract(team.runs.provenance_json, '$.init_from.run_uuid')),"
    " -json_extract(provenance_json, '$.init_from.run'))) END AS provenance_json";

// The copy's side of column `column` of `table`: run ids negated, evaluation ids shifted, sweeps left out (theirs
// are the store's).
QString copiedColumn(const QString &table, const QString &column)
{
    if ((column == QLatin1String("id") && table == QLatin1String("evaluations")) || column == QLatin1String("evaluation_id"))
        return QString::fromLatin1(kCopiedEvaluationId).arg(column);
    if ((column == QLatin1String("id") && table == QLatin1String("runs")) || column == QLatin1String("run_id"))
        return QStringLiteral("-%1 AS %1").arg(column);
    if (table == QLatin1String("runs") && (column == QLatin1String("sweep_id") || column == QLatin1String("sweep_trial")))
        return QStringLiteral("NULL AS %1").arg(column);
    if (table == QLatin1String("runs") && column == QLatin1String("provenance_json"))
        return QString::fromLatin1(kCopiedProvenance);
    return column;
}

} // namespace

QString RunDatabase::displayedRunId(qint64 id)
{
    return isTeamCopyId(id) ? QStringLiteral("T%1").arg(storeIdOfCopy(id)) : QString::number(id);
}

Status RunDatabase::attachTeamCopy(const QString &copyPath)
{
    if (!m_teamCopy.isEmpty())
        return Error(QStringLiteral("the team copy %1 is attached to %2 already").arg(m_teamCopy, m_path));
    const QString what = QStringLiteral("cannot read the team copy %1 beside the run database").arg(copyPath);
    QSqlQuery attach(m_db);
    attach.prepare(QStringLiteral("ATTACH DATABASE ? AS team"));
    attach.addBindValue(copyPath);
    if (!attach.exec())
        return runDbError(what, m_path, attach.lastError());
    QStringList statements;
    for (const ShadowedTable &table : kShadowedTables) {
        const QString name = QString::fromLatin1(table.name);
        QSqlQuery columns(m_db);
        if (!columns.exec(QStringLiteral("SELECT name FROM pragma_table_info('%1', 'main')").arg(name)))
            return runDbError(what, m_path, columns.lastError());
        QStringList mine, copied;
        if (table.rowidColumn) {
            mine << QStringLiteral("rowid AS rowid");
            copied << QStringLiteral("rowid AS rowid");
        }
        while (columns.next()) {
            const QString column = columns.value(0).toString();
            mine << column;
            copied << copiedColumn(name, column);
        }
        const QString onlyOthers = name == QLatin1String("runs")
                                       ? QStringLiteral(" WHERE uuid IS NULL OR uuid NOT IN (SELECT uuid FROM main.runs WHERE uuid IS NOT NULL)")
                                       : QString();
        statements << QStringLiteral("CREATE TEMP VIEW %1 AS SELECT %2 FROM main.%1 UNION ALL SELECT %3 FROM team.%1%4")
                          .arg(name, mine.join(QStringLiteral(", ")), copied.join(QStringLiteral(", ")), onlyOthers);
    }
    for (const QString &statement : std::as_const(statements)) {
        QSqlQuery create(m_db);
        if (!create.exec(statement)) {
            const Error error = runDbError(what, m_path, create.lastError());
            for (const ShadowedTable &table : kShadowedTables)
                (void)QSqlQuery(m_db).exec(QStringLiteral("DROP VIEW IF EXISTS temp.%1").arg(QString::fromLatin1(table.name)));
            (void)QSqlQuery(m_db).exec(QStringLiteral("DETACH DATABASE team"));
            return error;
        }
    }
    m_teamCopy = copyPath;
    return Status::success();
}

} // namespace ty
