#pragma once
// Helpers shared by the run database tests: a raw SQLite connection for checking and tampering with a file
// behind RunDatabase's back, sample runs, and a pid that is certainly dead. Test thread only.

#include "run_database.h"
#include "run_records.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QString>
#include <QTemporaryDir>
#include <QStringList>
#include <QVariant>

#include <memory>

namespace ty::testing {

// A plain connection of its own (no pragmas), closed and removed on destruction.
class RawSqlite {
public:
    explicit RawSqlite(const QString &path)
    {
        static int counter = 0;
        m_name = QStringLiteral("ty_runs_test_raw_%1").arg(++counter);
        m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        m_db.setDatabaseName(path);
        m_db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=10000"));
        m_db.open();
    }
    ~RawSqlite()
    {
        m_db.close();
        m_db = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_name);
    }
    bool isOpen() const { return m_db.isOpen(); }

    // Executes `sql`; returns the error text, empty on success.
    QString exec(const QString &sql, const QVariantList &binds = {})
    {
        QSqlQuery query(m_db);
        query.prepare(sql);
        for (const QVariant &value : binds)
            query.addBindValue(value);
        if (!query.exec())
            return query.lastError().text().isEmpty() ? QStringLiteral("failed") : query.lastError().text();
        return QString();
    }
    // The first column of the first row (invalid QVariant when there is none or on error).
    QVariant scalar(const QString &sql, const QVariantList &binds = {})
    {
        QSqlQuery query(m_db);
        query.setNumericalPrecisionPolicy(QSql::LowPrecisionDouble);
        query.prepare(sql);
        for (const QVariant &value : binds)
            query.addBindValue(value);
        if (!query.exec() || !query.next())
            return QVariant();
        return query.value(0);
    }
    QStringList tables()
    {
        QStringList names;
        QSqlQuery query(m_db);
        query.exec(QStringLiteral("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                                  "ORDER BY name"));
        while (query.next())
            names << query.value(0).toString();
        return names;
    }
    QStringList columns(const QString &table)
    {
        QStringList names;
        QSqlQuery query(m_db);
        query.exec(QStringLiteral("PRAGMA table_info(%1)").arg(table));
        while (query.next())
            names << query.value(1).toString();
        return names;
    }

private:
    QString m_name;
    QSqlDatabase m_db;
};

inline NewRun sampleNewRun(const QString &name = QStringLiteral("mnist small"))
{
    NewRun run;
    run.name = name;
    run.preset = QJsonObject{
        {QStringLiteral("format"), QStringLiteral("trainyard-preset")},
        {QStringLiteral("version"), 1},
        {QStringLiteral("name"), name},
        {QStringLiteral("nodes"),
         QJsonArray{QJsonObject{{QStringLiteral("id"), QStringLiteral("conv1")},
                                {QStringLiteral("block"), QStringLiteral("layer.conv2d")},
                                {QStringLiteral("params"), QJsonObject{{QStringLiteral("out_channels"), 32},
                                                                       {QStringLiteral("kernel_size"), 5}}}}}},
        {QStringLiteral("training"), QJsonObject{{QStringLiteral("epochs"), 10}, {QStringLiteral("lr"), 3e-4}}},
    };
    run.presetHash = QStringLiteral("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
    run.params = {{QStringLiteral("conv1.out_channels"), QStringLiteral("32")},
                  {QStringLiteral("conv1.kernel_size"), QStringLiteral("5")},
                  {QStringLiteral("training.epochs"), QStringLiteral("10")},
                  {QStringLiteral("opt.lr"), QStringLiteral("0.0003")},
                  {QStringLiteral("data.path"), QStringLiteral("/data/fashion-mnist/äöü train")}};
    run.appVersion = QStringLiteral("0.1.0");
    run.torchVersion = QStringLiteral("1.13.1");
    run.qtVersion = QStringLiteral("6.4.2");
    run.device = QStringLiteral("cuda:0");
    run.seed = (qint64(1) << 40) + 3;
    run.provenance = QJsonObject{{QStringLiteral("command_line"), QJsonArray{QStringLiteral("trainyard-cli"),
                                                                             QStringLiteral("run"),
                                                                             QStringLiteral("preset.json")}},
                                 {QStringLiteral("data_sha256"), QStringLiteral("abc123")}};
    return run;
}

// A sweep of two trials over val/accuracy (higher is better), as a sweep driver records one.
inline NewSweep sampleNewSweep()
{
    NewSweep sweep;
    sweep.name = QStringLiteral("lr search");
    sweep.spec = QJsonObject{{QStringLiteral("parallel"), 2}};
    sweep.preset = QJsonObject{{QStringLiteral("format"), QStringLiteral("trainyard-preset")}};
    sweep.presetFile = QStringLiteral("/data/mlp.trainyard.json");
    sweep.trials = QJsonArray{QJsonObject{{QStringLiteral("index"), 0}}, QJsonObject{{QStringLiteral("index"), 1}}};
    sweep.metric = QStringLiteral("val/accuracy");
    sweep.maximize = true;
    return sweep;
}

// A fresh database in a temporary folder.
inline constexpr int kForever = 3600 * 1000;  // a flush interval no test waits for: only flush()/finish() write

struct Fixture {
    QTemporaryDir dir;
    std::unique_ptr<RunDatabase> db;
    QString path;

    bool open()
    {
        path = dir.filePath(QStringLiteral("runs.sqlite"));
        auto opened = RunDatabase::open(path);
        if (!opened.ok())
            return false;
        db = std::move(opened.value());
        path = db->path();
        return true;
    }
    qint64 newRun(const QString &name = QStringLiteral("run")) { return db->createRun(testing::sampleNewRun(name)).value(); }
};

inline double valueAt(qint64 step) { return double(step) / 3.0 + 0.1; }  // not exact in 15 digits: catches text round trips

// The pid of a child process that has exited and been reaped (POSIX); 0 where that cannot be made.
qint64 deadProcessId();

// Makes file permissions bind the calling thread (and threads it starts while this lives) even when it runs as
// root: drops CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and CAP_FOWNER from the thread's effective capabilities
// and restores them on destruction. A no-op for other users. Linux only; ok() is false where it failed.
class FilePermissionsBind {
public:
    FilePermissionsBind();
    ~FilePermissionsBind();
    FilePermissionsBind(const FilePermissionsBind &) = delete;
    FilePermissionsBind &operator=(const FilePermissionsBind &) = delete;
    bool ok() const { return m_ok; }

private:
    bool m_ok = false;
    bool m_dropped = false;
    unsigned m_savedEffective[2] = {0, 0};
};

} // namespace ty::testing
