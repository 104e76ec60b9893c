#include "issue.h"

#include <QStringList>

namespace ty {

QString severityName(Severity severity)
{
    switch (severity) {
    case Severity::Error: return QStringLiteral("error");
    case Severity::Warning: return QStringLiteral("warning");
    case Severity::Info: return QStringLiteral("info");
    }
    return QStringLiteral("error");
}

QString Issue::toString() const
{
    QStringList where;
    if (!node.isEmpty())
        where << QStringLiteral("node '%1'").arg(node);
    if (!port.isEmpty())
        where << QStringLiteral("port '%1'").arg(port);
    if (!param.isEmpty())
        where << QStringLiteral("param '%1'").arg(param);
    QString out = severityName(severity) + QStringLiteral(": ");
    if (!where.isEmpty())
        out += where.join(QStringLiteral(", ")) + QStringLiteral(": ");
    return out + message;
}

QJsonObject Issue::toJson() const
{
    QJsonObject o{{QStringLiteral("severity"), severityName(severity)},
                  {QStringLiteral("message"), message}};
    if (!node.isEmpty())
        o.insert(QStringLiteral("node"), node);
    if (!port.isEmpty())
        o.insert(QStringLiteral("port"), port);
    if (!param.isEmpty())
        o.insert(QStringLiteral("param"), param);
    return o;
}

bool hasErrors(const Issues &issues)
{
    for (const Issue &issue : issues)
        if (issue.severity == Severity::Error)
            return true;
    return false;
}

} // namespace ty
