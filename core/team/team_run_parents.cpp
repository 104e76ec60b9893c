#include "team_run_parents.h"

#include "pg_connection.h"
#include "sqlite_connection.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace ty {

namespace {

const QString kInitFrom = QStringLiteral("init_from");
const QString kRun = QStringLiteral("run");
const QString kRunUuid = QStringLiteral("run_uuid");

// The provenance's object, or an empty one when the text is not a JSON object. A text that does not mention
// init_from (most runs; a provenance may hold a long import report) is not parsed: it names no parent.
QJsonObject provenanceObject(const QString &json)
{
    if (!json.contains(QLatin1String("\"init_from\"")))
        return QJsonObject();
    const QJsonDocument document = QJsonDocument::fromJson(json.toUtf8());
    return document.isObject() ? document.object() : QJsonObject();
}

QString compact(const QJsonObject &object) { return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact)); }

} // namespace

Result<QString> provenanceWithParentUuid(SqliteConnection &local, const QString &provenanceJson)
{
    QJsonObject provenance = provenanceObject(provenanceJson);
    QJsonObject initFrom = provenance.value(kInitFrom).toObject();
    if (!initFrom.value(kRun).isDouble())
        return provenanceJson;
    const QString what = QStringLiteral("cannot read the run a run started from");
    SqliteStatement select;
    if (Status prepared = select.prepare(local, "SELECT uuid FROM runs WHERE id = ?", what); !prepared.ok())
        return prepared.error();
    select.bindInt(1, qint64(initFrom.value(kRun).toDouble()));
    Result<bool> found = select.next(what);
    if (!found)
        return found.error();
    if (!found.value() || select.isNull(0))
        return provenanceJson;
    initFrom.insert(kRunUuid, select.textColumn(0));
    provenance.insert(kInitFrom, initFrom);
    return compact(provenance);
}

QString parentUuidOf(const QString &provenanceJson)
{
    return provenanceObject(provenanceJson).value(kInitFrom).toObject().value(kRunUuid).toString();
}

Result<QHash<QString, qint64>> storeIdsOfRuns(PgConnection &server, const QStringList &uuids)
{
    QHash<QString, qint64> ids;
    if (uuids.isEmpty())
        return ids;
    Result<PgResult> found = server.exec(QStringLiteral("SELECT uuid, id FROM trainyard.runs WHERE uuid = ANY($1::text[])"),
                                         {pgTextArray(uuids)}, QStringLiteral("cannot read the team store's runs"));
    if (!found)
        return found.error();
    for (int row = 0; row < found.value().rows(); ++row)
        ids.insert(found.value().text(row, 0), found.value().integer(row, 1));
    return ids;
}

QString provenanceWithStoreParent(const QString &provenanceJson, const QHash<QString, qint64> &storeIds)
{
    QJsonObject provenance = provenanceObject(provenanceJson);
    QJsonObject initFrom = provenance.value(kInitFrom).toObject();
    if (!initFrom.contains(kRun))
        return provenanceJson;
    const auto storeId = storeIds.constFind(initFrom.value(kRunUuid).toString());
    if (storeId != storeIds.constEnd())
        initFrom.insert(kRun, double(storeId.value()));
    else
        initFrom.remove(kRun);
    provenance.insert(kInitFrom, initFrom);
    return compact(provenance);
}

} // namespace ty
