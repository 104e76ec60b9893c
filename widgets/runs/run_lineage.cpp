#include "run_lineage.h"

#include "run_database.h"  // displayedRunId: T7 for a teammate's run in the Both view
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
    const QString id = RunDatabase::displayedRunId(parentRun(parent));
    return name.isEmpty() ? QStringLiteral("run #%1").arg(id) : QStringLiteral("run #%1 “%2”").arg(id, name);
}

// A parent known only by its uuid or its name (a bundle's or a teammate's run that is not here): by its name.
bool elsewhere(const QJsonObject &parent)
{
    return !parent.contains(QStringLiteral("run")) && !parent.contains(QStringLiteral("file"))
        && (parent.contains(QStringLiteral("run_uuid")) || parent.contains(QStringLiteral("run_name")));
}

QString shapeText(const QJsonValue &shape)
{
    QStringList parts;
    for (const QJsonValue &d : shape.toArray())
        parts << QString::number(saturatedInt64(d.toDouble()));
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

// "fc1.weight [16, 8] ← 1.weight F32 [16, 8]: reason", as much of it as the entry has.
QString entryText(const QJsonObject &e)
{
    QString text;
    if (e.contains(QStringLiteral("tensor")))
        text = e.value(QStringLiteral("tensor")).toString() + QLatin1Char(' ') + shapeText(e.value(QStringLiteral("shape")));
    if (e.contains(QStringLiteral("file_tensor"))) {
        const QString file = QStringLiteral("%1 %2 %3").arg(e.value(QStringLiteral("file_tensor")).toString(),
                                                             e.value(QStringLiteral("file_dtype")).toString(), shapeText(e.value(QStringLiteral("file_shape"))));
        text = text.isEmpty() ? file : text + QStringLiteral(" ← ") + file;
    }
    if (e.contains(QStringLiteral("reason")))
        text += QStringLiteral(": ") + e.value(QStringLiteral("reason")).toString();
    return text;
}

} // namespace

QString importSummary(const QJsonObject &parent)
{
    const QJsonObject report = parent.value(QStringLiteral("import")).toObject();
    if (report.isEmpty())
        return QString();
    const QJsonObject counts = report.value(QStringLiteral("counts")).toObject();
    return QStringLiteral("Imported with map %1%2: %3 copied, %4 skipped, %5 missing, %6 mismatched")
        .arg(report.value(QStringLiteral("map")).toString(), report.value(QStringLiteral("strict")).toBool() ? QStringLiteral(" (strict)") : QString())
        .arg(counts.value(QStringLiteral("copied")).toInt()).arg(counts.value(QStringLiteral("skipped")).toInt())
        .arg(counts.value(QStringLiteral("missing")).toInt()).arg(counts.value(QStringLiteral("mismatched")).toInt());
}

QString importDetails(const QJsonObject &parent, int maxLines)
{
    const QJsonObject report = parent.value(QStringLiteral("import")).toObject();
    QStringList lines;
    int total = 0;
    for (const char *kind : {"mismatched", "missing", "skipped", "copied"})  // the problems first
        for (const QJsonValue &e : report.value(QLatin1String(kind)).toArray()) {
            if (++total <= maxLines)
                lines << QStringLiteral("%1 %2").arg(QLatin1String(kind), entryText(e.toObject()));
        }
    if (total > maxLines)
        lines << QStringLiteral("… and %1 more").arg(total - maxLines);
    return lines.join(QLatin1Char('\n'));
}

namespace {

QString withImport(const QString &description, const QJsonObject &parent, bool html = false)
{
    const QString import = importSummary(parent);
    return import.isEmpty() ? description : description + QStringLiteral(". ") + (html ? import.toHtmlEscaped() : import);
}

} // namespace

QString parentShortText(const QJsonObject &parent)
{
    if (parent.contains(QStringLiteral("run")))
        return QStringLiteral("#%1").arg(RunDatabase::displayedRunId(parentRun(parent)));
    if (parent.contains(QStringLiteral("file")))
        return QFileInfo(parent.value(QStringLiteral("file")).toString()).fileName();
    if (elsewhere(parent))
        return QStringLiteral("“%1” (not here)").arg(parent.value(QStringLiteral("run_name")).toString());
    return QString();
}

QString parentDescription(const QJsonObject &parent)
{
    if (parent.contains(QStringLiteral("run")))
        return withImport(QStringLiteral("Started from %1%2").arg(runText(parent), details(parent, true)), parent);
    if (parent.contains(QStringLiteral("file")))
        return withImport(QStringLiteral("Started from the weights file %1%2").arg(parent.value(QStringLiteral("file")).toString(), details(parent, true)),
                          parent);
    if (elsewhere(parent))
        return withImport(QStringLiteral("Started from the run “%1” of another run database%2, not here%3")
                              .arg(parent.value(QStringLiteral("run_name")).toString(),
                                   parent.contains(QStringLiteral("run_uuid"))
                                       ? QStringLiteral(" (uuid %1)").arg(parent.value(QStringLiteral("run_uuid")).toString())
                                       : QString(),
                                   details(parent, true)),
                          parent);
    return QString();
}

QString parentDescriptionHtml(const QJsonObject &parent)
{
    if (!parent.contains(QStringLiteral("run")))
        return parentDescription(parent).toHtmlEscaped();
    return withImport(QStringLiteral("Started from <a href=\"run:%1\">%2</a>%3")
                          .arg(parentRun(parent))
                          .arg(runText(parent).toHtmlEscaped(), details(parent, false).toHtmlEscaped()),
                      parent, true);
}

} // namespace ty
