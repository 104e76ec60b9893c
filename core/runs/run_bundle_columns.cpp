#include "run_bundle_columns.h"

#include "sqlite_connection.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QSet>

#include <cmath>

namespace ty {

namespace {

constexpr double kLargestExactInteger = 9007199254740992.0;  // 2^53

} // namespace

const BundleColumns &bundleRunColumns()
{
    static const BundleColumns columns = {
        {"uuid", BundleColumn::Text, false},          {"name", BundleColumn::Text, true},
        {"status", BundleColumn::Text, false},        {"status_message", BundleColumn::Text, true},
        {"error_node", BundleColumn::Text, true},     {"preset_json", BundleColumn::JsonObject, false},
        {"preset_hash", BundleColumn::Text, true},    {"created_at", BundleColumn::Text, true},
        {"started_at", BundleColumn::Text, true},     {"ended_at", BundleColumn::Text, true},
        {"heartbeat_at", BundleColumn::Text, true},   {"app_version", BundleColumn::Text, true},
        {"torch_version", BundleColumn::Text, true},  {"qt_version", BundleColumn::Text, true},
        {"device", BundleColumn::Text, true},         {"host", BundleColumn::Text, true},
        {"seed", BundleColumn::Integer, true},        {"provenance_json", BundleColumn::JsonObject, true},
        {"notes", BundleColumn::Text, true},          {"sweep_trial", BundleColumn::Integer, true},
    };
    return columns;
}

const BundleColumns &bundleSweepColumns()
{
    static const BundleColumns columns = {
        {"uuid", BundleColumn::Text, false},        {"name", BundleColumn::Text, true},
        {"status", BundleColumn::Text, false},      {"spec_json", BundleColumn::JsonObject, false},
        {"preset_json", BundleColumn::JsonObject, false}, {"preset_file", BundleColumn::Text, true},
        {"trials_json", BundleColumn::JsonArray, false},  {"metric", BundleColumn::Text, false},
        {"maximize", BundleColumn::Integer, false}, {"created_at", BundleColumn::Text, true},
        {"ended_at", BundleColumn::Text, true},     {"host", BundleColumn::Text, true},
    };
    return columns;
}

const BundleColumns &bundleEventColumns()
{
    static const BundleColumns columns = {
        {"step", BundleColumn::Integer, true}, {"time", BundleColumn::Real, true},
        {"kind", BundleColumn::Text, true},    {"message", BundleColumn::Text, true},
    };
    return columns;
}

const BundleColumns &bundleStageColumns()
{
    static const BundleColumns columns = {
        {"idx", BundleColumn::Integer, false},        {"name", BundleColumn::Text, false},
        {"start_step", BundleColumn::Integer, false}, {"end_step", BundleColumn::Integer, true},
        {"start_epoch", BundleColumn::Integer, true}, {"epochs", BundleColumn::Integer, true},
        {"frozen_json", BundleColumn::JsonArray, true},
    };
    return columns;
}

const BundleColumns &bundleCheckpointColumns()
{
    static const BundleColumns columns = {
        {"step", BundleColumn::Integer, true}, {"epoch", BundleColumn::Integer, true},
        {"created_at", BundleColumn::Text, true}, {"sha256", BundleColumn::Text, false},
        {"kind", BundleColumn::Text, true},
    };
    return columns;
}

const BundleColumns &bundleEvaluationColumns()
{
    static const BundleColumns columns = {
        {"split", BundleColumn::Text, false},          {"checkpoint_step", BundleColumn::Integer, false},
        {"created_at", BundleColumn::Text, true},      {"task", BundleColumn::Text, false},
        {"sample_count", BundleColumn::Integer, false}, {"accuracy", BundleColumn::Real, true},
        {"summary_json", BundleColumn::JsonObject, false},
    };
    return columns;
}

int bundleColumnIndex(const BundleColumns &columns, const char *name)
{
    for (int i = 0; i < columns.size(); ++i) {
        if (qstrcmp(columns[i].name, name) == 0)
            return i;
    }
    return -1;
}

QString bundleColumnList(const BundleColumns &columns)
{
    QStringList names;
    for (const BundleColumn &column : columns)
        names << QLatin1String(column.name);
    return names.join(QStringLiteral(", "));
}

QJsonObject bundleRowToJson(const BundleColumns &columns, const SqliteStatement &statement, int first)
{
    QJsonObject object;
    for (int i = 0; i < columns.size(); ++i) {
        const QVariant value = statement.valueColumn(first + i);
        QJsonValue json;
        if (!value.isValid()) {
            json = QJsonValue::Null;
        } else if (value.typeId() == QMetaType::LongLong) {
            const qint64 integer = value.toLongLong();
            json = std::abs(double(integer)) <= kLargestExactInteger ? QJsonValue(double(integer)) : QJsonValue(QString::number(integer));
        } else if (value.typeId() == QMetaType::Double) {
            const double real = value.toDouble();
            json = std::isfinite(real) ? QJsonValue(real) : QJsonValue(real > 0 ? QStringLiteral("Infinity") : QStringLiteral("-Infinity"));
        } else {
            json = value.toString();
        }
        object.insert(QLatin1String(columns[i].name), json);
    }
    return object;
}

namespace {

Result<QVariant> columnValue(const BundleColumn &column, const QJsonValue &json, const QString &where)
{
    const QString field = QStringLiteral("%1.%2").arg(where, QLatin1String(column.name));
    if (json.isNull()) {
        if (!column.nullable)
            return Error::atField(field, QStringLiteral("must not be null"));
        return QVariant();
    }
    switch (column.kind) {
    case BundleColumn::Text:
        if (!json.isString())
            return Error::atField(field, QStringLiteral("expected a string"));
        return QVariant(json.toString());
    case BundleColumn::Integer: {
        if (json.isString()) {
            bool ok = false;
            const qint64 integer = json.toString().toLongLong(&ok);
            if (!ok || std::abs(double(integer)) <= kLargestExactInteger)  // small integers are written as numbers
                return Error::atField(field, QStringLiteral("expected an integer"));
            return QVariant(integer);
        }
        const double number = json.toDouble(std::nan(""));
        if (!json.isDouble() || !std::isfinite(number) || std::floor(number) != number || std::abs(number) > kLargestExactInteger)
            return Error::atField(field, QStringLiteral("expected an integer"));
        return QVariant(qint64(number));
    }
    case BundleColumn::Real:
        if (json.isString()) {
            if (json.toString() == QLatin1String("Infinity"))
                return QVariant(std::numeric_limits<double>::infinity());
            if (json.toString() == QLatin1String("-Infinity"))
                return QVariant(-std::numeric_limits<double>::infinity());
        }
        if (!json.isDouble())
            return Error::atField(field, QStringLiteral("expected a number"));
        return QVariant(json.toDouble());
    case BundleColumn::JsonObject:
    case BundleColumn::JsonArray: {
        if (!json.isString())
            return Error::atField(field, QStringLiteral("expected a string holding JSON"));
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(json.toString().toUtf8(), &parseError);
        const bool object = column.kind == BundleColumn::JsonObject;
        if (parseError.error != QJsonParseError::NoError || (object ? !doc.isObject() : !doc.isArray()))
            return Error::atField(field, QStringLiteral("expected a JSON %1").arg(object ? QStringLiteral("object") : QStringLiteral("array")));
        return QVariant(json.toString());
    }
    }
    return Error::atField(field, QStringLiteral("unknown column kind"));
}

} // namespace

Result<QVariantList> bundleRowFromJson(const BundleColumns &columns, const QJsonObject &object, const QString &where,
                                       const QStringList &extraKeys)
{
    QSet<QString> known(extraKeys.cbegin(), extraKeys.cend());
    QVariantList values;
    for (const BundleColumn &column : columns) {
        const QString name = QLatin1String(column.name);
        known.insert(name);
        if (!object.contains(name))
            return Error::atField(where + QLatin1Char('.') + name, QStringLiteral("missing"));
        Result<QVariant> value = columnValue(column, object.value(name), where);
        if (!value)
            return value.error();
        values << value.value();
    }
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        if (!known.contains(it.key()))
            return Error::atField(where + QLatin1Char('.') + it.key(), QStringLiteral("unknown field"));
    }
    return values;
}

void bindBundleRow(SqliteStatement &statement, int first, const QVariantList &values)
{
    for (int i = 0; i < values.size(); ++i) {
        const QVariant &value = values[i];
        const int index = first + i;
        if (!value.isValid())
            statement.bindNull(index);
        else if (value.typeId() == QMetaType::LongLong)
            statement.bindInt(index, value.toLongLong());
        else if (value.typeId() == QMetaType::Double)
            statement.bindDouble(index, value.toDouble());
        else
            statement.bindText(index, value.toString());
    }
}

} // namespace ty
