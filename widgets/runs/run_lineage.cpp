#include "run_lineage.h"

#include "saturating.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QStringList>

namespace ty {

namespace {

qint64 parentRun(const QJsonObject &parent) { return saturatedInt64(parent.value(QStringLiteral("run")).toDouble()); }

QString checkpointText(const QJsonObject &parent)
{
    const QString which = parent.value(QStringLiteral("checkpoint")).toString();
    const QJsonValue step = parent.value(QStringLiteral("checkpoint_step"));
    if (which.isEmpty())
        return step.isDouble() ? QStringLiteral("checkpoint at step %1").arg(saturatedInt64(step.toDouble())) : QString();
    return step.isDouble() ? QStringLiteral("checkpoint %1 (step %2)").arg(which).arg(saturatedInt64(step.toDouble()))
                           : QStringLiteral("checkpoint %1").arg(which);
}

// ", checkpoint best (step 1720), sha256 …, nodes fc1, fc2": everything after the source itself.
QString details(const QJsonObject &parent, bool fullSha)
{
    QStringList parts;
    if (parent.contains(QStringLiteral("run")) && !checkpointText(parent).isEmpty())
        parts << checkpointText(parent);
    const QString sha = parent.value(QStringLiteral("sha256")).toString();
    if (!sha.isEmpty())
        parts << QStringLiteral("sha256 %1").arg(fullSha || sha.size() <= 12 ? sha : sha.left(12) + QStringLiteral("…"));
    QStringList nodes;
    for (const QJsonValue &node : parent.value(QStringLiteral("nodes")).toArray())
        nodes << node.toString();
    if (!nodes.isEmpty())
        parts << QStringLiteral("nodes %1").arg(nodes.join(QStringLiteral(", ")));
    return parts.isEmpty() ? QString() : QStringLiteral(", ") + parts.join(QStringLiteral(", "));
}

QString runText(const QJsonObject &parent)
{
    const QString name = parent.value(QStringLiteral("run_name")).toString();
    return name.isEmpty() ? QStringLiteral("run #%1").arg(parentRun(parent))
                          : QStringLiteral("run #%1 “%2”").arg(parentRun(parent)).arg(name);
}

} // namespace

QString parentShortText(const QJsonObject &parent)
{
    if (parent.contains(QStringLiteral("run")))
        return QStringLiteral("#%1").arg(parentRun(parent));
    if (parent.contains(QStringLiteral("file")))
        return QFileInfo(parent.value(QStringLiteral("file")).toString()).fileName();
    return QString();
}

QString parentDescription(const QJsonObject &parent)
{
    if (parent.contains(QStringLiteral("run")))
        return QStringLiteral("Started from %1%2").arg(runText(parent), details(parent, true));
    if (parent.contains(QStringLiteral("file")))
        return QStringLiteral("Started from the weights file %1%2").arg(parent.value(QStringLiteral("file")).toString(), details(parent, true));
    return QString();
}

QString parentDescriptionHtml(const QJsonObject &parent)
{
    if (!parent.contains(QStringLiteral("run")))
        return parentDescription(parent).toHtmlEscaped();
    return QStringLiteral("Started from <a href=\"run:%1\">%2</a>%3")
        .arg(parentRun(parent))
        .arg(runText(parent).toHtmlEscaped(), details(parent, false).toHtmlEscaped());
}

} // namespace ty
