#include "team_test_support.h"

#include "blobs_preset.h"
#include "pg_connection.h"
#include "sqlite_connection.h"

#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QRandomGenerator>
#include <QtEndian>

#include <cstring>

namespace tyteam {

namespace {

// A replicated table as the test sees it: its columns, which of them are reals, and its order.
struct Table {
    const char *name;
    QStringList columns;  // after the run's uuid
    QStringList reals;
    QString localOrder;   // after the uuid
    QString storeOrder;
    QString localFrom = {};  // instead of the table, a query giving it a run_id (evaluation samples: their evaluation's)
};

const QList<Table> &tables()
{
    static const QList<Table> list = {
        {"runs", {"name", "status", "status_message", "error_node", "preset_json", "preset_hash", "created_at", "started_at", "ended_at",
                  "heartbeat_at", "app_version", "torch_version", "qt_version", "device", "host", "seed", "provenance_json", "notes",
                  "sweep_trial", "pid", "folder"}, {}, "", ""},
        {"run_params", {"key", "value"}, {}, "t.key", "t.key"},
        {"run_tags", {"tag"}, {}, "t.tag", "t.tag"},
        {"metrics", {"name", "step", "epoch", "time", "value"}, {"time", "value"}, "t.name, t.step", "t.name, t.step"},
        {"metric_summaries", {"name", "count", "min_value", "max_value", "last_step", "last_value"}, {"min_value", "max_value", "last_value"},
         "t.name", "t.name"},
        {"events", {"step", "time", "kind", "message"}, {"time"}, "t.rowid", "t.seq"},
        {"stages", {"idx", "name", "start_step", "end_step", "start_epoch", "epochs", "frozen_json"}, {}, "t.idx", "t.idx"},
        {"checkpoints", {"step", "epoch", "created_at", "sha256", "kind", "path"}, {}, "t.rowid", "t.seq"},
        {"evaluations", {"split", "checkpoint_step", "created_at", "task", "sample_count", "accuracy", "summary_json"}, {"accuracy"},
         "t.split, t.checkpoint_step", "t.split, t.checkpoint_step"},
        {"evaluation_samples", {"split", "checkpoint_step", "sample_index", "label", "predicted", "confidence"}, {"label", "predicted", "confidence"},
         "t.split, t.checkpoint_step, t.sample_index", "t.split, t.checkpoint_step, t.sample_index",
         "(SELECT e.run_id, e.split, e.checkpoint_step, s.sample_index, s.label, s.predicted, s.confidence"
         " FROM evaluation_samples s JOIN evaluations e ON e.id = s.evaluation_id)"},
    };
    return list;
}

QString realBits(double value)
{
    quint64 bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    return QString::number(bits, 16).rightJustified(16, QLatin1Char('0'));
}

QString cell(const QVariant &value)
{
    if (!value.isValid())
        return QStringLiteral("NULL");
    if (value.typeId() == QMetaType::Double)
        return realBits(value.toDouble());
    return value.toString();
}

} // namespace

QString fixtureServer()
{
    QFile file(QStringLiteral(TRAINYARD_TEAM_SERVER_INFO));
    if (!file.open(QIODevice::ReadOnly))
        return QString();
    return QString::fromUtf8(file.readAll()).trimmed();
}

QString serverSql(const QString &conninfo, const QString &sql)
{
    ty::PgConnection server;
    if (ty::Status opened = server.open(conninfo); !opened.ok())
        return opened.error().message;
    ty::Result<ty::PgResult> done = server.exec(sql, {}, QStringLiteral("test SQL"));
    return done ? QString() : done.error().message;
}

QString createDatabase(const QString &conninfo)
{
    const QString name = QStringLiteral("team_test_%1").arg(QRandomGenerator::global()->generate64() % 1000000000000ULL);
    const QString error = serverSql(conninfo, QStringLiteral("CREATE DATABASE %1").arg(name));
    if (!error.isEmpty())
        qFatal("cannot create a test database: %s", qPrintable(error));
    return conninfo + QStringLiteral(" dbname=") + name;
}

CliResult cli(const QStringList &arguments, const QProcessEnvironment &environment)
{
    return tytest::runProgram(QStringLiteral(TRAINYARD_CLI), arguments, {environment, QString(), 300000});
}

QString blobsPreset(const QTemporaryDir &dir, int epochs, int samples)
{
    return tytest::writeBlobsPreset(dir, "\"epochs\": " + QByteArray::number(epochs) + ", \"batch_size\": 8, \"device\": \"cpu\", \"seed\": 3, \"log_every\": 1",
                                    samples);
}

QStringList localUuids(const QString &databasePath)
{
    ty::SqliteConnection db;
    if (!db.openReadOnly(databasePath).ok())
        return {};
    ty::SqliteStatement select;
    if (!select.prepare(db, "SELECT uuid FROM runs ORDER BY uuid", QStringLiteral("uuids")).ok())
        return {};
    QStringList uuids;
    while (select.next(QStringLiteral("uuids")).value())
        uuids << select.textColumn(0);
    return uuids;
}

QStringList localRows(const QString &databasePath)
{
    ty::SqliteConnection db;
    if (ty::Status opened = db.openReadOnly(databasePath); !opened.ok())
        return {opened.error().message};
    QStringList rows;
    for (const Table &table : tables()) {
        const bool runs = QByteArray(table.name) == "runs";
        QStringList columns;
        for (const QString &column : table.columns)
            columns << QStringLiteral("t.") + column;
        const QString sql = runs ? QStringLiteral("SELECT t.uuid, %1 FROM runs t ORDER BY t.uuid").arg(columns.join(QLatin1Char(',')))
                                 : QStringLiteral("SELECT r.uuid, %1 FROM %2 t JOIN runs r ON r.id = t.run_id ORDER BY r.uuid, %3")
                                       .arg(columns.join(QLatin1Char(',')), table.localFrom.isEmpty() ? QLatin1String(table.name) : table.localFrom,
                                            table.localOrder);
        ty::SqliteStatement select;
        if (ty::Status prepared = select.prepare(db, sql.toUtf8(), QStringLiteral("rows")); !prepared.ok())
            return {prepared.error().message};
        while (select.next(QStringLiteral("rows")).value()) {
            QStringList row{QLatin1String(table.name)};
            for (int i = 0; i <= table.columns.size(); ++i)
                row << cell(select.valueColumn(i));
            rows << row.join(QLatin1Char('|'));
        }
    }
    return rows;
}

QStringList storeRows(const QString &conninfo, const QStringList &uuids)
{
    ty::PgConnection server;
    if (ty::Status opened = server.open(conninfo); !opened.ok())
        return {opened.error().message};
    const QString wanted = QStringLiteral("{%1}").arg(uuids.join(QLatin1Char(',')));
    QStringList rows;
    for (const Table &table : tables()) {
        const bool runs = QByteArray(table.name) == "runs";
        QStringList columns;
        for (const QString &column : table.columns)
            columns << (table.reals.contains(column) ? QStringLiteral("encode(float8send(t.%1), 'hex')").arg(column) : QStringLiteral("t.") + column);
        const QString sql = runs ? QStringLiteral("SELECT t.uuid, %1 FROM trainyard.runs t WHERE t.uuid = ANY($1::text[]) ORDER BY t.uuid COLLATE \"C\"")
                                       .arg(columns.join(QLatin1Char(',')))
                                 : QStringLiteral("SELECT t.run_uuid, %1 FROM trainyard.%2 t WHERE t.run_uuid = ANY($1::text[])"
                                                  " ORDER BY t.run_uuid COLLATE \"C\", %3")
                                       .arg(columns.join(QLatin1Char(',')), QLatin1String(table.name), table.storeOrder);
        ty::Result<ty::PgResult> result = server.exec(sql, {wanted}, QStringLiteral("rows"));
        if (!result)
            return {result.error().message};
        for (int r = 0; r < result.value().rows(); ++r) {
            QStringList row{QLatin1String(table.name)};
            for (int i = 0; i <= table.columns.size(); ++i)
                row << (result.value().isNull(r, i) ? QStringLiteral("NULL") : result.value().text(r, i));
            rows << row.join(QLatin1Char('|'));
        }
    }
    return rows;
}

// The rows of `sql` on the store, the first column of each (queries join theirs with concat_ws('|', ...)).
QStringList storeQuery(const QString &conninfo, const QString &sql)
{
    ty::PgConnection server;
    if (!server.open(conninfo).ok())
        return {QStringLiteral("cannot connect")};
    ty::Result<ty::PgResult> result = server.exec(sql, {}, QStringLiteral("test query"));
    if (!result)
        return {result.error().message};
    QStringList rows;
    for (int row = 0; row < result.value().rows(); ++row)
        rows << result.value().text(row, 0);
    return rows;
}

QString storeValue(const QString &conninfo, const QString &sql)
{
    const QStringList rows = storeQuery(conninfo, sql);
    return rows.isEmpty() ? QString() : rows.first();
}

QJsonObject jsonOf(const CliResult &result)
{
    return QJsonDocument::fromJson(result.out.toUtf8()).object();
}

namespace {

qint64 storeCount(const QString &conninfo, const char *table)
{
    bool number = false;
    const qint64 count = storeValue(conninfo, QStringLiteral("SELECT count(*) FROM trainyard.%1").arg(QLatin1String(table))).toLongLong(&number);
    return number ? count : -1;
}

} // namespace

qint64 storeMetricRows(const QString &conninfo) { return storeCount(conninfo, "metrics"); }

qint64 storeRuns(const QString &conninfo) { return storeCount(conninfo, "runs"); }

} // namespace tyteam
