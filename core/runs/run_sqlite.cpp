#include "run_sqlite.h"

#include "shared_folder.h"

#include <QJsonDocument>

#include <QSqlQuery>
#include <QThread>

#include <atomic>

namespace ty {

QString uniqueRunConnectionName(const QString &purpose)
{
    static std::atomic<quint64> counter{0};
    return QStringLiteral("ty_runs_%1_%2").arg(purpose).arg(++counter);
}

Result<QSqlDatabase> openRunConnection(const QString &connectionName, const QString &path, bool readOnly)
{
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connectionName);
    if (!db.isValid()) {
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(connectionName);
        return Error(QStringLiteral("cannot open %1: the Qt SQLite driver (QSQLITE) is not available").arg(path));
    }
    db.setDatabaseName(path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(kRunDbBusyTimeoutMs)
                         + (readOnly ? QStringLiteral(";QSQLITE_OPEN_READONLY") : QString()));
    if (!db.open()) {
        const Error error = runDbError(QStringLiteral("cannot open the run database"), path, db.lastError());
        closeRunConnection(db);
        return error;
    }
    const QString pragmas[] = {
        QStringLiteral("PRAGMA busy_timeout=%1").arg(kRunDbBusyTimeoutMs),
        QStringLiteral("PRAGMA foreign_keys=ON"),
        QStringLiteral("PRAGMA synchronous=NORMAL"),
    };
    for (const QString &pragma : pragmas) {
        const Status status = execRunSql(db, pragma, path);
        if (!status.ok()) {
            closeRunConnection(db);
            return status.error();
        }
    }
    return db;
}

void closeRunConnection(QSqlDatabase &db)
{
    const QString name = db.connectionName();
    if (db.isOpen())
        db.close();
    db = QSqlDatabase();
    if (!name.isEmpty())
        QSqlDatabase::removeDatabase(name);
}

Status enableWriteAheadLog(QSqlDatabase &db, const QString &path)
{
    QSqlQuery query(db);
    // Changing the journal mode needs the file to itself; SQLite answers "locked" at once (without waiting on
    // the busy timeout) while another process opens the same new file, so try again for a while.
    for (int attempt = 0; !query.exec(QStringLiteral("PRAGMA journal_mode=WAL")); ++attempt) {
        if (!isBusyError(query.lastError()) || attempt == 100)
            return runDbError(QStringLiteral("cannot switch to write-ahead logging"), path, query.lastError());
        QThread::msleep(20);
    }
    if (query.next() && query.value(0).toString().compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0) {
        return Error(QStringLiteral("cannot switch %1 to write-ahead logging (journal mode stays '%2')")
                      .arg(path, query.value(0).toString()));
    }
    return Status::success();
}

Result<int> readUserVersion(const QSqlDatabase &db, const QString &path)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("PRAGMA user_version")) || !query.next())
        return runDbError(QStringLiteral("cannot read the schema version"), path, query.lastError());
    return query.value(0).toInt();
}

Error runDbError(const QString &what, const QString &path, const QSqlError &sqlError)
{
    QString detail = sqlError.databaseText();
    if (detail.isEmpty())
        detail = sqlError.driverText();
    if (detail.isEmpty())
        detail = QStringLiteral("unknown SQLite error");
    if (isDamagedError(sqlError))
        return Error(QStringLiteral("the run database is damaged: %1 in %2: %3; see docs/reliability.md for recovery")
                         .arg(what, path, detail));
    return Error(QStringLiteral("%1 in %2: %3").arg(what, path, detail));
}

bool isDamagedError(const QSqlError &sqlError)
{
    bool ok = false;
    const int code = sqlError.nativeErrorCode().toInt(&ok);
    if (ok) {
        const int primary = code & 0xff;
        return primary == 11 /* SQLITE_CORRUPT */ || primary == 26 /* SQLITE_NOTADB */;
    }
    return sqlError.databaseText().contains(QLatin1String("malformed"));
}

std::optional<Error> rowsCutShort(const QSqlQuery &query, const QString &what, const QString &path)
{
    if (!query.lastError().isValid())
        return std::nullopt;
    return runDbError(what, path, query.lastError());
}

bool isBusyError(const QSqlError &sqlError)
{
    bool ok = false;
    const int code = sqlError.nativeErrorCode().toInt(&ok);
    if (ok) {
        const int primary = code & 0xff;  // extended codes keep the primary code in the low byte
        return primary == 5 /* SQLITE_BUSY */ || primary == 6 /* SQLITE_LOCKED */;
    }
    return sqlError.databaseText().contains(QLatin1String("locked"));
}

Status execRunSql(const QSqlDatabase &db, const QString &sql, const QString &path)
{
    QSqlQuery query(db);
    if (!query.exec(sql))
        return runDbError(QStringLiteral("cannot execute '%1'").arg(sql), path, query.lastError());
    return Status::success();
}

RunWriteTransaction::RunWriteTransaction(const QSqlDatabase &db, const QString &path) : m_db(db), m_path(path) {}

RunWriteTransaction::~RunWriteTransaction()
{
    if (m_open)
        rollback();
}

Status RunWriteTransaction::begin()
{
    const Status status = execRetrying(QStringLiteral("BEGIN IMMEDIATE"), QStringLiteral("cannot start a write transaction"));
    m_open = status.ok();
    return status;
}

Status RunWriteTransaction::commit()
{
    const Status status = execRetrying(QStringLiteral("COMMIT"), QStringLiteral("cannot commit"));
    if (status.ok())
        m_open = false;
    else
        rollback();
    return status;
}

void RunWriteTransaction::rollback()
{
    QSqlQuery query(m_db);
    query.exec(QStringLiteral("ROLLBACK"));  // fails harmlessly when SQLite already rolled back
    m_open = false;
}

Status RunWriteTransaction::execRetrying(const QString &sql, const QString &what)
{
    QSqlError lastError;
    for (int attempt = 0; attempt <= kRunDbBusyRetries; ++attempt) {
        if (attempt > 0)
            QThread::msleep(20 * attempt);  // busy_timeout already waited; back off a little more
        QSqlQuery query(m_db);
        if (query.exec(sql))
            return Status::success();
        lastError = query.lastError();
        if (!isBusyError(lastError))
            break;
    }
    return runDbError(what, m_path, lastError);
}

Status inRunWriteTransaction(const QSqlDatabase &db, const QString &path, const std::function<Status()> &body)
{
    if (db.connectOptions().contains(QLatin1String("QSQLITE_OPEN_READONLY")))
        return Error(sharedFolderMessage(path, sharedFileSystemOf(path)));
    RunWriteTransaction transaction(db, path);
    if (Status begun = transaction.begin(); !begun.ok())
        return begun;
    if (Status done = body(); !done.ok())
        return done;  // the transaction rolls back when it goes out of scope
    return transaction.commit();
}

QString toRunDbTime(const QDateTime &time)
{
    if (!time.isValid())
        return QString();
    return time.toUTC().toString(Qt::ISODateWithMs);
}

QDateTime fromRunDbTime(const QVariant &value)
{
    if (value.isNull())
        return QDateTime();
    QDateTime time = QDateTime::fromString(value.toString(), Qt::ISODateWithMs);
    if (!time.isValid())
        time = QDateTime::fromString(value.toString(), Qt::ISODate);
    return time.isValid() ? time.toUTC() : QDateTime();
}

QString runDbNow() { return toRunDbTime(QDateTime::currentDateTimeUtc()); }

QString compactJson(const QJsonObject &object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QString compactJson(const QJsonArray &array)
{
    return QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Compact));
}

} // namespace ty
