#pragma once
// Small helpers for RunDatabase around Qt's QSQLITE driver: opening a connection with the pragmas every connection
// needs, errors as ty::Error, write transactions that never fail with "database is locked", and the timestamp format
// of the database. RunWriter, which talks to SQLite directly (sqlite_connection.h), shares the busy settings, the
// errors and the times.
//
// Threads: a QSqlDatabase connection belongs to the thread that opened it; every function here must be called
// on that thread. The helpers own nothing; closeRunConnection() removes the connection from Qt's registry.

#include "error.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QString>
#include <QVariant>

#include <functional>
#include <optional>

namespace ty {

// busy_timeout applied to every connection, in milliseconds.
constexpr int kRunDbBusyTimeoutMs = 10000;
// How many times a write transaction is retried after SQLite still reports SQLITE_BUSY once busy_timeout
// has run out (so a write waits at most about this many times busy_timeout before it gives up).
constexpr int kRunDbBusyRetries = 5;

// "ty_runs_<purpose>_<n>", unique within the process.
QString uniqueRunConnectionName(const QString &purpose);

// Adds a QSQLITE connection named `connectionName` for `path` on the calling thread and opens it with
// busy_timeout, foreign_keys=ON and synchronous=NORMAL. Changes nothing in the file (journal_mode is set by
// enableWriteAheadLog()). On failure the connection is already removed again.
Result<QSqlDatabase> openRunConnection(const QString &connectionName, const QString &path, bool readOnly = false);
// Closes `db` and removes its connection from Qt's registry; `db` is left invalid.
void closeRunConnection(QSqlDatabase &db);
// PRAGMA journal_mode=WAL (persistent in the file).
Status enableWriteAheadLog(QSqlDatabase &db, const QString &path);

// PRAGMA user_version.
Result<int> readUserVersion(const QSqlDatabase &db, const QString &path);

// "<what> in <path>: <SQLite's message>".
Error runDbError(const QString &what, const QString &path, const QSqlError &sqlError);
// After a loop over query.next(): an Error when the rows stopped because of an error (a damaged page) rather
// than at the end, so that a damaged database is never read as a shorter one.
std::optional<Error> rowsCutShort(const QSqlQuery &query, const QString &what, const QString &path);
// Whether an error says the file is damaged (SQLITE_CORRUPT, SQLITE_NOTADB).
bool isDamagedError(const QSqlError &sqlError);
// SQLITE_BUSY or SQLITE_LOCKED.
bool isBusyError(const QSqlError &sqlError);

// Executes one statement without parameters.
Status execRunSql(const QSqlDatabase &db, const QString &sql, const QString &path);

// A write transaction opened with BEGIN IMMEDIATE (takes the write lock up front, so the statements inside
// never meet SQLITE_BUSY half way). BEGIN and COMMIT are retried kRunDbBusyRetries times on SQLITE_BUSY.
// Rolls back on destruction unless committed.
class RunWriteTransaction {
public:
    RunWriteTransaction(const QSqlDatabase &db, const QString &path);
    ~RunWriteTransaction();
    RunWriteTransaction(const RunWriteTransaction &) = delete;
    RunWriteTransaction &operator=(const RunWriteTransaction &) = delete;

    Status begin();
    Status commit();
    void rollback();

private:
    Status execRetrying(const QString &sql, const QString &what);

    QSqlDatabase m_db;
    QString m_path;
    bool m_open = false;
};

// Runs `body` inside one RunWriteTransaction: commits when it succeeds, rolls back otherwise.
Status inRunWriteTransaction(const QSqlDatabase &db, const QString &path, const std::function<Status()> &body);

// Times are stored as ISO-8601 UTC text with milliseconds: "2024-05-01T12:34:56.789Z".
QString toRunDbTime(const QDateTime &time);
QDateTime fromRunDbTime(const QVariant &value);  // invalid QDateTime for NULL or unparsable text
QString runDbNow();

// JSON as stored in the run database's text columns.
QString compactJson(const QJsonObject &object);
QString compactJson(const QJsonArray &array);

// Binds an empty string as SQL NULL.
inline QVariant nullIfEmpty(const QString &text) { return text.isEmpty() ? QVariant() : QVariant(text); }

} // namespace ty
