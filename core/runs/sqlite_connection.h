#pragma once
// A raw SQLite connection and prepared statement, for RunWriter's writer thread. RunWriter talks to SQLite through
// its C API rather than QtSql: Qt's per-value QVariant binding (and its placeholder bookkeeping) cost about twice
// SQLite's own work per metric row. RunDatabase and everything else keep using QtSql.
// Internal to ty_runs (public only because headers of a target share one folder); <sqlite3.h> stays private.
//
// Threads: a SqliteConnection and its statements belong to the thread that opened it (opened without SQLite's
// own mutex). Ownership: the connection owns its sqlite3 handle; finalise every statement before closing it.

#include "error.h"

#include <QByteArray>
#include <QString>
#include <QVariant>

struct sqlite3;
struct sqlite3_stmt;

namespace ty {

class SqliteConnection {
public:
    SqliteConnection() = default;
    ~SqliteConnection() { close(); }
    SqliteConnection(const SqliteConnection &) = delete;
    SqliteConnection &operator=(const SqliteConnection &) = delete;

    // Opens an EXISTING file read-write (never creates one) with busy_timeout, foreign_keys=ON and
    // synchronous=NORMAL, like openRunConnection(). Errors name `path`.
    Status open(const QString &path);
    // Opens an EXISTING file for reading only (allowed on shared folders, where writing is refused): for
    // exporting runs in bulk (run bundles).
    Status openReadOnly(const QString &path);
    void close();
    bool isOpen() const { return m_db != nullptr; }
    const QString &path() const { return m_path; }
    sqlite3 *handle() const { return m_db; }

    // Executes statements without parameters (and without result rows that matter).
    Status exec(const char *sql, const QString &what);
    // The first column of the first row of `sql`, as text (for PRAGMAs).
    Result<QString> queryText(const char *sql, const QString &what);
    // Rows changed by the last INSERT, UPDATE or DELETE.
    int changes() const;
    // The rowid of the last row inserted on this connection.
    qint64 lastInsertRowId() const;

    // "<what> in <path>: <SQLite's message>", like runDbError(). Also notes whether that error may pass by itself
    // (lastErrorMayPass()).
    Error error(const QString &what) const;
    // The last result was SQLITE_BUSY or SQLITE_LOCKED.
    bool lastWasBusy() const;
    // The last error() reported a fault that may pass without a change to the file: busy or locked (another
    // connection holds the lock), full (disk or file-size limit), or an I/O error. False after clearLastError().
    bool lastErrorMayPass() const { return m_lastErrorMayPass; }
    void clearLastError() { m_lastErrorMayPass = false; }

private:
    Status openWithFlags(int flags);  // m_path with sqlite3_open_v2's flags, and the busy timeout

    sqlite3 *m_db = nullptr;
    QString m_path;
    mutable bool m_lastErrorMayPass = false;
};

class SqliteStatement {
public:
    SqliteStatement() = default;
    ~SqliteStatement() { finalize(); }
    SqliteStatement(const SqliteStatement &) = delete;
    SqliteStatement &operator=(const SqliteStatement &) = delete;

    Status prepare(SqliteConnection &db, const QByteArray &sql, const QString &what);
    void finalize();

    // Parameters are 1-based, as in SQLite. Binding only fails on a wrong index (a bug), which step() reports.
    void bindInt(int index, qint64 value);
    void bindDouble(int index, double value);  // NaN is bound as NULL
    void bindNull(int index);
    // `utf8` must stay alive and unchanged until the statement is stepped.
    void bindStaticText(int index, const QByteArray &utf8);
    void bindText(int index, const QString &text);  // copies; empty text binds an empty string, not NULL

    // Runs the statement to completion and resets it for the next binding (bindings are kept).
    Status run(const QString &what);

    // Reading rows: next() steps to the next row (true) or past the last (false, the statement reset for the next
    // binding); an error resets it too. Columns are 0-based, read while next() is true.
    Result<bool> next(const QString &what);
    bool isNull(int column) const;
    qint64 intColumn(int column) const;
    double doubleColumn(int column) const;  // NULL reads as NaN
    QString textColumn(int column) const;   // NULL reads as a null QString
    // The column's value as SQLite holds it: an integer (qint64), a real, text, or invalid for NULL (blobs as text).
    QVariant valueColumn(int column) const;

private:
    SqliteConnection *m_db = nullptr;
    sqlite3_stmt *m_stmt = nullptr;
};

// A write transaction opened with BEGIN IMMEDIATE; BEGIN and COMMIT are retried kRunDbBusyRetries times when
// SQLite still says busy after busy_timeout, as RunWriteTransaction does. Rolls back on destruction unless committed.
class SqliteWriteTransaction {
public:
    explicit SqliteWriteTransaction(SqliteConnection &db) : m_db(db) {}
    ~SqliteWriteTransaction();
    SqliteWriteTransaction(const SqliteWriteTransaction &) = delete;
    SqliteWriteTransaction &operator=(const SqliteWriteTransaction &) = delete;

    Status begin();
    Status commit();

private:
    Status execRetrying(const char *sql, const QString &what);

    SqliteConnection &m_db;
    bool m_open = false;
};

} // namespace ty
