#include "pg_connection.h"

#include <libpq-fe.h>

#include <QStringList>

#include <cmath>
#include <limits>
#include <vector>

namespace ty {

namespace {

QString trimmedMessage(const char *message)
{
    return QString::fromUtf8(message).trimmed();
}

// The server's own message ("permission denied for table runs"), without libpq's "ERROR:  " and context lines.
QString resultMessage(const PGresult *result, pg_conn *conn)
{
    if (result) {
        if (const char *primary = PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY))
            return trimmedMessage(primary);
        if (*PQresultErrorMessage(result))
            return trimmedMessage(PQresultErrorMessage(result));
    }
    return trimmedMessage(PQerrorMessage(conn));
}

} // namespace

PgResult::PgResult(pg_result *result) : m_result(result, PQclear) {}

int PgResult::rows() const
{
    return m_result ? PQntuples(m_result.get()) : 0;
}

bool PgResult::isNull(int row, int column) const
{
    return PQgetisnull(m_result.get(), row, column) != 0;
}

QString PgResult::text(int row, int column) const
{
    if (isNull(row, column))
        return QString();
    return QString::fromUtf8(PQgetvalue(m_result.get(), row, column), PQgetlength(m_result.get(), row, column));
}

qint64 PgResult::integer(int row, int column) const
{
    return QByteArray(PQgetvalue(m_result.get(), row, column)).toLongLong();
}

qint64 PgResult::affectedRows() const
{
    return m_result ? QByteArray(PQcmdTuples(m_result.get())).toLongLong() : 0;
}

QVariant PgResult::value(int row, int column, int kind) const
{
    if (isNull(row, column))
        return QVariant();
    const QByteArray raw(PQgetvalue(m_result.get(), row, column), PQgetlength(m_result.get(), row, column));
    switch (kind) {
    case 1:  // BundleColumn::Integer
        return QVariant(raw.toLongLong());
    case 2: {  // BundleColumn::Real
        if (raw == "Infinity")
            return QVariant(std::numeric_limits<double>::infinity());
        if (raw == "-Infinity")
            return QVariant(-std::numeric_limits<double>::infinity());
        if (raw == "NaN")
            return QVariant(std::numeric_limits<double>::quiet_NaN());
        return QVariant(raw.toDouble());
    }
    default:
        return QVariant(QString::fromUtf8(raw));
    }
}

PgCanceller::~PgCanceller()
{
    if (m_cancel)
        PQfreeCancel(m_cancel);
}

void PgCanceller::cancel()
{
    char message[256];
    if (m_cancel)
        (void)PQcancel(m_cancel, message, int(sizeof message));  // best effort: the statement ends with an error, or already ended
}

std::shared_ptr<PgCanceller> PgConnection::canceller() const
{
    if (!isOpen())
        return nullptr;
    return std::make_shared<PgCanceller>(PQgetCancel(m_conn));
}

PgConnection::PgConnection() = default;

PgConnection::~PgConnection()
{
    close();
}

Status PgConnection::open(const QString &conninfo)
{
    close();
    Result<QString> name = redactedConninfo(conninfo);
    if (!name)
        return name.error();
    m_name = name.value();
    // The string's own connect_timeout (expanded from dbname, which comes later) wins over this default.
    const QByteArray expanded = conninfo.toUtf8();
    const char *keys[] = {"connect_timeout", "application_name", "dbname", nullptr};
    const char *values[] = {"10", "trainyard", expanded.constData(), nullptr};
    m_conn = PQconnectdbParams(keys, values, 1);
    if (PQstatus(m_conn) != CONNECTION_OK) {
        const QString message = trimmedMessage(PQerrorMessage(m_conn));
        close();
        return Error(QStringLiteral("cannot connect to the team store %1: %2").arg(m_name, message));
    }
    PQsetNoticeProcessor(m_conn, [](void *, const char *) {}, nullptr);  // "relation exists, skipping" and the like
    return Status::success();
}

void PgConnection::close()
{
    if (m_conn)
        PQfinish(m_conn);
    m_conn = nullptr;
}

bool PgConnection::isOpen() const
{
    return m_conn && PQstatus(m_conn) == CONNECTION_OK;
}

Error PgConnection::failure(const QString &what, const QString &message)
{
    return Error(QStringLiteral("%1 on the team store %2: %3").arg(what, m_name, message));
}

Result<PgResult> PgConnection::exec(const QString &sql, const QVariantList &params, const QString &what)
{
    if (!m_conn)
        return failure(what, QStringLiteral("not connected"));
    std::vector<QByteArray> texts;
    std::vector<const char *> pointers;
    texts.reserve(size_t(params.size()));
    for (const QVariant &param : params) {
        texts.push_back(pgText(param));
        pointers.push_back(param.isValid() ? texts.back().constData() : nullptr);
    }
    const QByteArray query = sql.toUtf8();
    PGresult *raw = PQexecParams(m_conn, query.constData(), int(pointers.size()), nullptr, pointers.data(), nullptr, nullptr, 0);
    PgResult result(raw);
    const ExecStatusType status = raw ? PQresultStatus(raw) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
        return result;
    if (const char *state = raw ? PQresultErrorField(raw, PG_DIAG_SQLSTATE) : nullptr)
        m_lastSqlState = state;
    return failure(what, resultMessage(raw, m_conn));
}

Status PgConnection::command(const QString &sql, const QString &what)
{
    Result<PgResult> result = exec(sql, {}, what);
    if (!result)
        return result.error();
    return Status::success();
}

Status PgConnection::inTransaction(const QString &what, const std::function<Status()> &work)
{
    if (Status begun = command(QStringLiteral("BEGIN"), what); !begun.ok())
        return begun;
    Status done = work();
    if (!done.ok()) {
        (void)command(QStringLiteral("ROLLBACK"), what);
        return done;
    }
    return command(QStringLiteral("COMMIT"), what);
}

Status PgConnection::copyIn(const QString &sql, const QByteArray &data, const QString &what)
{
    if (!m_conn)
        return failure(what, QStringLiteral("not connected"));
    PGresult *start = PQexec(m_conn, sql.toUtf8().constData());
    const bool copying = PQresultStatus(start) == PGRES_COPY_IN;
    const QString startMessage = resultMessage(start, m_conn);
    if (const char *state = PQresultErrorField(start, PG_DIAG_SQLSTATE))
        m_lastSqlState = state;
    PQclear(start);
    if (!copying)
        return failure(what, startMessage);
    if (PQputCopyData(m_conn, data.constData(), int(data.size())) != 1 || PQputCopyEnd(m_conn, nullptr) != 1)
        return failure(what, trimmedMessage(PQerrorMessage(m_conn)));
    QString message;
    while (PGresult *end = PQgetResult(m_conn)) {
        if (PQresultStatus(end) != PGRES_COMMAND_OK) {
            message = resultMessage(end, m_conn);
            if (const char *state = PQresultErrorField(end, PG_DIAG_SQLSTATE))
                m_lastSqlState = state;
        }
        PQclear(end);
    }
    if (!message.isEmpty())
        return failure(what, message);
    return Status::success();
}

int PgConnection::socketDescriptor() const
{
    return m_conn ? PQsocket(m_conn) : -1;
}

Result<QList<QByteArray>> PgConnection::takeNotifications(const QByteArray &channel)
{
    if (!m_conn)
        return failure(QStringLiteral("cannot listen"), QStringLiteral("not connected"));
    if (PQconsumeInput(m_conn) != 1 || PQstatus(m_conn) != CONNECTION_OK)
        return failure(QStringLiteral("lost the connection"), trimmedMessage(PQerrorMessage(m_conn)));
    QList<QByteArray> payloads;
    while (PGnotify *notification = PQnotifies(m_conn)) {
        if (channel == notification->relname)
            payloads << QByteArray(notification->extra);
        PQfreemem(notification);
    }
    return payloads;
}

QString pgTextArray(const QStringList &values)
{
    QStringList quoted;
    for (QString value : values) {
        value.replace(QLatin1Char('\\'), QLatin1String("\\\\")).replace(QLatin1Char('"'), QLatin1String("\\\""));
        quoted << QLatin1Char('"') + value + QLatin1Char('"');
    }
    return QLatin1Char('{') + quoted.join(QLatin1Char(',')) + QLatin1Char('}');
}

Result<QString> redactedConninfo(const QString &conninfo)
{
    char *parseError = nullptr;
    PQconninfoOption *options = PQconninfoParse(conninfo.toUtf8().constData(), &parseError);
    if (!options) {
        const QString message = parseError ? trimmedMessage(parseError) : QStringLiteral("out of memory");
        PQfreemem(parseError);
        return Error::atField(QStringLiteral("--team"), QStringLiteral("not a libpq connection string: %1").arg(message));
    }
    QStringList pairs;
    for (PQconninfoOption *option = options; option->keyword; ++option) {
        if (!option->val || QByteArray(option->keyword) == "password")
            continue;
        QString value = QString::fromUtf8(option->val);
        value.replace(QLatin1Char('\\'), QLatin1String("\\\\")).replace(QLatin1Char('\''), QLatin1String("\\'"));
        const bool quote = value.isEmpty() || value.contains(QLatin1Char(' ')) || value.contains(QLatin1Char('\''));
        pairs << QStringLiteral("%1=%2").arg(QString::fromUtf8(option->keyword), quote ? QLatin1Char('\'') + value + QLatin1Char('\'') : value);
    }
    PQconninfoFree(options);
    return pairs.join(QLatin1Char(' '));
}

Result<QString> storableConninfo(const QString &conninfo, const QString &field)
{
    char *parseError = nullptr;
    PQconninfoOption *options = PQconninfoParse(conninfo.toUtf8().constData(), &parseError);
    if (!options) {
        const QString message = parseError ? trimmedMessage(parseError) : QStringLiteral("out of memory");
        PQfreemem(parseError);
        return Error::atField(field, QStringLiteral("not a libpq connection string: %1").arg(message));
    }
    bool password = false;
    for (PQconninfoOption *option = options; option->keyword; ++option)
        password = password || (QByteArray(option->keyword) == "password" && option->val && *option->val);
    PQconninfoFree(options);
    if (password)
        return Error::atField(field, QStringLiteral("the connection string holds a password, which is never stored: remove it and put it "
                                                    "in ~/.pgpass (mode 0600) or the file PGPASSFILE names"));
    return conninfo;
}

void appendCopyField(QByteArray &row, const QVariant &value)
{
    if (!value.isValid()) {
        row += "\\N";
        return;
    }
    const QByteArray text = pgText(value);
    for (const char c : text) {
        switch (c) {
        case '\\': row += "\\\\"; break;
        case '\t': row += "\\t"; break;
        case '\n': row += "\\n"; break;
        case '\r': row += "\\r"; break;
        default: row += c;
        }
    }
}

QByteArray pgText(const QVariant &value)
{
    if (!value.isValid())
        return QByteArray();
    switch (value.typeId()) {
    case QMetaType::LongLong:
    case QMetaType::Int:
        return QByteArray::number(value.toLongLong());
    case QMetaType::Double: {
        const double real = value.toDouble();
        if (std::isnan(real))
            return QByteArrayLiteral("NaN");
        if (std::isinf(real))
            return real > 0 ? QByteArrayLiteral("Infinity") : QByteArrayLiteral("-Infinity");
        return QByteArray::number(real, 'g', 17);
    }
    case QMetaType::Bool:
        return value.toBool() ? QByteArrayLiteral("true") : QByteArrayLiteral("false");
    default:
        return value.toString().toUtf8();
    }
}

} // namespace ty
