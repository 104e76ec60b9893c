#pragma once
// A libpq connection to the team store (docs/team.md): connection strings are libpq's own (key=value conninfo or
// postgresql:// URI), so its password file, service file, TLS options and PG* environment variables all apply.
// Values travel in libpq's text format. <libpq-fe.h> stays private to ty_team.
//
// Threads: a PgConnection belongs to the thread that uses it (libpq connections are not shared between threads).
// Ownership: it owns its PGconn; a PgResult owns its PGresult.

#include "error.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QVariant>

#include <functional>
#include <memory>

struct pg_conn;
struct pg_result;
struct pg_cancel;

namespace ty {

// One query's rows, read as text. A NULL reads as a null QString / invalid QVariant.
class PgResult {
public:
    PgResult() = default;
    explicit PgResult(pg_result *result);
    int rows() const;
    bool isNull(int row, int column) const;
    QString text(int row, int column) const;
    qint64 integer(int row, int column) const;
    // Rows an INSERT, UPDATE or DELETE changed.
    qint64 affectedRows() const;
    // The value as `kind` says (BundleColumn::Kind numbering: text and JSON as QString, integers as qint64, reals
    // as double; "Infinity" and "NaN" as such), invalid for NULL.
    QVariant value(int row, int column, int kind) const;

private:
    std::shared_ptr<pg_result> m_result;
};

// Asks the server to cancel what a connection is running (PQcancel): callable from any thread, also while the
// connection's own thread waits on that statement, and after the connection closed (then it does nothing useful).
class PgCanceller {
public:
    explicit PgCanceller(pg_cancel *cancel) : m_cancel(cancel) {}
    ~PgCanceller();
    PgCanceller(const PgCanceller &) = delete;
    PgCanceller &operator=(const PgCanceller &) = delete;
    void cancel();

private:
    pg_cancel *m_cancel;
};

class PgConnection {
public:
    PgConnection();
    ~PgConnection();
    PgConnection(const PgConnection &) = delete;
    PgConnection &operator=(const PgConnection &) = delete;

    // Connects with `conninfo` (a URI or key=value pairs). A connect_timeout of 10 s applies unless the string
    // sets its own. Errors name the store by redactedConninfo().
    Status open(const QString &conninfo);
    void close();
    bool isOpen() const;

    // Executes `sql` with parameters $1, $2, ... (invalid QVariant: NULL; numbers written so that they read back
    // exactly). Errors say "<what> on the team store <name>: <server's message>".
    Result<PgResult> exec(const QString &sql, const QVariantList &params, const QString &what);
    Status command(const QString &sql, const QString &what);
    // BEGIN, `work`, then COMMIT; ROLLBACK (and work's error) when it fails.
    Status inTransaction(const QString &what, const std::function<Status()> &work);
    // COPY ... FROM STDIN in text format: `data` holds the rows, already escaped (copyField()).
    Status copyIn(const QString &sql, const QByteArray &data, const QString &what);

    // For LISTEN (team_listener.h): the connection's socket, for a socket notifier (-1 when not connected), and
    // what arrived on it: the payloads of the notifications on `channel` (PQconsumeInput, then PQnotifies; it
    // never waits). An Error when the connection broke.
    int socketDescriptor() const;
    Result<QList<QByteArray>> takeNotifications(const QByteArray &channel);

    // What cancels the statement this connection runs, from another thread; null when not connected.
    std::shared_ptr<PgCanceller> canceller() const;

    // The store's name in messages: the connection string without its password.
    const QString &name() const { return m_name; }
    // True when the last statement that failed was refused for want of privileges (a read-only role); statements
    // that succeed since (a ROLLBACK) do not change it.
    bool lastErrorWasPermission() const { return m_lastSqlState == QByteArrayLiteral("42501"); }

private:
    Error failure(const QString &what, const QString &message);

    pg_conn *m_conn = nullptr;
    QString m_name;
    QByteArray m_lastSqlState;
};

// The connection string as key=value pairs without any password (parsed by libpq, so URIs and conninfo strings
// both work), or an Error when libpq cannot parse it. This is what may be stored or printed.
Result<QString> redactedConninfo(const QString &conninfo);
// `conninfo` when it may be stored (a setting, a preset): an Error, naming `field`, when libpq cannot parse it or
// when it holds a password (which belongs in ~/.pgpass, PGPASSFILE or a service file, not in a setting).
Result<QString> storableConninfo(const QString &conninfo, const QString &field);

// `values` as a PostgreSQL text[] literal ({"a","b\"c"}), for $n::text[] parameters.
QString pgTextArray(const QStringList &values);

// A value for COPY's text format: \N for NULL; backslash, tab, newline and carriage return escaped.
void appendCopyField(QByteArray &row, const QVariant &value);

// `value` as libpq text: integers in decimal, reals with 17 significant digits (Infinity, -Infinity, NaN).
QByteArray pgText(const QVariant &value);

} // namespace ty
