#include "sqlite_connection.h"

#include "run_sqlite.h"
#include "shared_folder.h"

#include <QThread>

#include <sqlite3.h>

#include <cmath>

namespace ty {

Status SqliteConnection::open(const QString &path)
{
    close();
    m_path = path;
    // Only the run writer opens this way, to write: never on a shared folder (shared_folder.h).
    if (const QString shared = sharedFileSystemOf(path); !shared.isEmpty())
        return Error(sharedFolderMessage(path, shared));
    if (Status opened = openWithFlags(SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX); !opened)
        return opened;
    for (const char *pragma : {"PRAGMA foreign_keys=ON", "PRAGMA synchronous=NORMAL"}) {
        if (Status status = exec(pragma, QStringLiteral("cannot execute '%1'").arg(QLatin1String(pragma))); !status.ok()) {
            close();
            return status;
        }
    }
    return Status::success();
}

Status SqliteConnection::openReadOnly(const QString &path)
{
    close();
    m_path = path;
    return openWithFlags(SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX);
}

Status SqliteConnection::openWithFlags(int flags)
{
    const int rc = sqlite3_open_v2(m_path.toUtf8().constData(), &m_db, flags, nullptr);
    if (rc != SQLITE_OK) {
        const Error failed = m_db ? error(QStringLiteral("cannot open the run database"))
                                  : Error(QStringLiteral("cannot open the run database in %1: out of memory").arg(m_path));
        close();
        return failed;
    }
    sqlite3_busy_timeout(m_db, kRunDbBusyTimeoutMs);
    return Status::success();
}

void SqliteConnection::close()
{
    if (m_db)
        sqlite3_close_v2(m_db);
    m_db = nullptr;
}

Status SqliteConnection::exec(const char *sql, const QString &what)
{
    if (sqlite3_exec(m_db, sql, nullptr, nullptr, nullptr) != SQLITE_OK)
        return error(what);
    return Status::success();
}

Result<QString> SqliteConnection::queryText(const char *sql, const QString &what)
{
    sqlite3_stmt *stmt = nullptr;
    if (sqlite3_prepare_v2(m_db, sql, -1, &stmt, nullptr) != SQLITE_OK)
        return error(what);
    const int rc = sqlite3_step(stmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        const Error failed = error(what);
        sqlite3_finalize(stmt);
        return failed;
    }
    QString text;
    if (rc == SQLITE_ROW)
        text = QString::fromUtf8(reinterpret_cast<const char *>(sqlite3_column_text(stmt, 0)));
    sqlite3_finalize(stmt);
    return text;
}

int SqliteConnection::changes() const { return sqlite3_changes(m_db); }

qint64 SqliteConnection::lastInsertRowId() const { return sqlite3_last_insert_rowid(m_db); }

Error SqliteConnection::error(const QString &what) const
{
    const char *message = m_db ? sqlite3_errmsg(m_db) : nullptr;
    const int primary = m_db ? sqlite3_errcode(m_db) & 0xff : SQLITE_NOMEM;
    m_lastErrorMayPass = primary == SQLITE_BUSY || primary == SQLITE_LOCKED || primary == SQLITE_FULL ||
                         primary == SQLITE_IOERR || primary == SQLITE_PROTOCOL;
    return Error(QStringLiteral("%1 in %2: %3")
                     .arg(what, m_path, message ? QString::fromUtf8(message) : QStringLiteral("unknown SQLite error")));
}

bool SqliteConnection::lastWasBusy() const
{
    const int primary = sqlite3_errcode(m_db) & 0xff;
    return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

Status SqliteStatement::prepare(SqliteConnection &db, const QByteArray &sql, const QString &what)
{
    finalize();
    m_db = &db;
    if (sqlite3_prepare_v3(db.handle(), sql.constData(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &m_stmt, nullptr)
        != SQLITE_OK) {
        m_stmt = nullptr;
        return db.error(what);
    }
    return Status::success();
}

void SqliteStatement::finalize()
{
    if (m_stmt)
        sqlite3_finalize(m_stmt);
    m_stmt = nullptr;
}

void SqliteStatement::bindInt(int index, qint64 value) { sqlite3_bind_int64(m_stmt, index, value); }

void SqliteStatement::bindDouble(int index, double value)
{
    if (std::isnan(value))
        sqlite3_bind_null(m_stmt, index);
    else
        sqlite3_bind_double(m_stmt, index, value);
}

void SqliteStatement::bindNull(int index) { sqlite3_bind_null(m_stmt, index); }

void SqliteStatement::bindStaticText(int index, const QByteArray &utf8)
{
    sqlite3_bind_text(m_stmt, index, utf8.constData(), int(utf8.size()), SQLITE_STATIC);
}

void SqliteStatement::bindText(int index, const QString &text)
{
    if (text.isNull()) {  // as QtSql binds a null QString
        sqlite3_bind_null(m_stmt, index);
        return;
    }
    const QByteArray utf8 = text.toUtf8();
    sqlite3_bind_text(m_stmt, index, utf8.constData(), int(utf8.size()), SQLITE_TRANSIENT);
}

Status SqliteStatement::run(const QString &what)
{
    int rc = sqlite3_step(m_stmt);
    while (rc == SQLITE_ROW)
        rc = sqlite3_step(m_stmt);
    const Status result = rc == SQLITE_DONE ? Status::success() : Status(m_db->error(what));
    sqlite3_reset(m_stmt);
    return result;
}

Result<bool> SqliteStatement::next(const QString &what)
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    const Status result = rc == SQLITE_DONE ? Status::success() : Status(m_db->error(what));
    sqlite3_reset(m_stmt);
    if (!result)
        return result.error();
    return false;
}

bool SqliteStatement::isNull(int column) const { return sqlite3_column_type(m_stmt, column) == SQLITE_NULL; }

qint64 SqliteStatement::intColumn(int column) const { return sqlite3_column_int64(m_stmt, column); }

double SqliteStatement::doubleColumn(int column) const
{
    return isNull(column) ? std::nan("") : sqlite3_column_double(m_stmt, column);
}

QString SqliteStatement::textColumn(int column) const
{
    const auto *text = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, column));
    if (!text)
        return {};
    return QString::fromUtf8(text, sqlite3_column_bytes(m_stmt, column));
}

QVariant SqliteStatement::valueColumn(int column) const
{
    switch (sqlite3_column_type(m_stmt, column)) {
    case SQLITE_INTEGER:
        return QVariant(qint64(sqlite3_column_int64(m_stmt, column)));
    case SQLITE_FLOAT:
        return QVariant(sqlite3_column_double(m_stmt, column));
    case SQLITE_NULL:
        return {};
    default:
        return QVariant(textColumn(column));
    }
}

SqliteWriteTransaction::~SqliteWriteTransaction()
{
    if (m_open)
        sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);  // fails harmlessly when already rolled back
}

Status SqliteWriteTransaction::begin()
{
    const Status status = execRetrying("BEGIN IMMEDIATE", QStringLiteral("cannot start a write transaction"));
    m_open = status.ok();
    return status;
}

Status SqliteWriteTransaction::commit()
{
    const Status status = execRetrying("COMMIT", QStringLiteral("cannot commit"));
    if (!status.ok())
        sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    m_open = false;
    return status;
}

Status SqliteWriteTransaction::execRetrying(const char *sql, const QString &what)
{
    for (int attempt = 0;; ++attempt) {
        if (attempt > 0)
            QThread::msleep(20 * attempt);  // busy_timeout already waited; back off a little more
        if (sqlite3_exec(m_db.handle(), sql, nullptr, nullptr, nullptr) == SQLITE_OK)
            return Status::success();
        if (!m_db.lastWasBusy() || attempt == kRunDbBusyRetries)
            return m_db.error(what);
    }
}

} // namespace ty
