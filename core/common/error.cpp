#include "error.h"

#include <QStringList>

namespace ty {

Error Error::inFile(QString file, QString message, QString field)
{
    Error e(std::move(message));
    e.file = std::move(file);
    e.field = std::move(field);
    return e;
}

Error Error::atNode(QString node, QString message, QString field)
{
    Error e(std::move(message));
    e.node = std::move(node);
    e.field = std::move(field);
    return e;
}

Error Error::atField(QString field, QString message)
{
    Error e(std::move(message));
    e.field = std::move(field);
    return e;
}

QString Error::toString() const
{
    QString where;
    if (!file.isEmpty()) {
        where = file;
        if (line > 0) {
            where += QStringLiteral(":%1").arg(line);
            if (column > 0)
                where += QStringLiteral(":%1").arg(column);
        }
    }
    QStringList context;
    if (!node.isEmpty())
        context << QStringLiteral("node '%1'").arg(node);
    if (!field.isEmpty())
        context << QStringLiteral("field '%1'").arg(field);

    QString out;
    if (!where.isEmpty())
        out += where + QStringLiteral(": ");
    if (!context.isEmpty())
        out += context.join(QStringLiteral(", ")) + QStringLiteral(": ");
    return out + message;
}

} // namespace ty

namespace ty {

void failUncheckedResult(const Error &error)
{
    qFatal("internal error: the value of a failed result was used; the error was: %s", qPrintable(error.toString()));
}

} // namespace ty
