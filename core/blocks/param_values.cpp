#include "param_values.h"

#include "printable_text.h"

#include "json_io.h"

#include <QJsonArray>

#include <cmath>

namespace ty {

namespace spec {

namespace {
ParamSpec make(const QString &name, ParamType type, const QJsonValue &def, double min, double max,
               const QString &doc)
{
    ParamSpec p;
    p.name = name;
    p.type = type;
    p.defaultValue = def;
    p.minimum = min;
    p.maximum = max;
    p.doc = doc;
    return p;
}
constexpr double kInf = std::numeric_limits<double>::infinity();
} // namespace

ParamSpec intParam(const QString &name, qint64 def, double min, double max, const QString &doc)
{
    return make(name, ParamType::Int, QJsonValue(def), min, max, doc);
}
ParamSpec floatParam(const QString &name, double def, double min, double max, const QString &doc)
{
    return make(name, ParamType::Float, QJsonValue(def), min, max, doc);
}
ParamSpec boolParam(const QString &name, bool def, const QString &doc)
{
    return make(name, ParamType::Bool, QJsonValue(def), -kInf, kInf, doc);
}
ParamSpec choiceParam(const QString &name, const QString &def, const QStringList &choices, const QString &doc)
{
    ParamSpec p = make(name, ParamType::Choice, QJsonValue(def), -kInf, kInf, doc);
    p.choices = choices;
    return p;
}
ParamSpec stringParam(const QString &name, const QString &def, const QString &doc)
{
    return make(name, ParamType::String, QJsonValue(def), -kInf, kInf, doc);
}
ParamSpec metricNameParam(const QString &name, const QString &def, const QString &doc)
{
    ParamSpec spec = stringParam(name, def, doc);
    spec.namesMetric = true;
    return spec;
}
ParamSpec pathParam(const QString &name, const QString &def, const QString &doc)
{
    return make(name, ParamType::Path, QJsonValue(def), -kInf, kInf, doc);
}
ParamSpec floatListParam(const QString &name, const QList<double> &def, const QString &doc)
{
    QJsonArray array;
    for (double d : def)
        array.append(d);
    return make(name, ParamType::FloatList, array, -kInf, kInf, doc);
}
PortSpec port(const QString &name, PortKind kind, const QString &doc, bool required)
{
    return PortSpec{name, kind, required, doc};
}

} // namespace spec

namespace {

QString describe(const QJsonValue &value)
{
    if (value.isNull() || value.isUndefined() || value.isObject() || (value.isArray() && value.toArray().isEmpty()))
        return value.isArray() ? QStringLiteral("an empty array") : jsonTypeName(value);
    const QString text = paramValueText(value);
    return value.isString() ? QStringLiteral("%1 \"%2\"").arg(jsonTypeName(value), text)
                            : QStringLiteral("%1 %2").arg(jsonTypeName(value), text);
}

QString checkRange(const ParamSpec &spec, double d)
{
    if (!std::isfinite(d))
        return QStringLiteral("must be a finite number");
    auto number = [](double v) { return paramValueText(QJsonValue(v)); };
    if (d < spec.minimum)
        return QStringLiteral("must be at least %1 (got %2)").arg(number(spec.minimum), number(d));
    if (d > spec.maximum)
        return QStringLiteral("must be at most %1 (got %2)").arg(number(spec.maximum), number(d));
    return QString();
}

} // namespace

QString checkParamValue(const ParamSpec &spec, const QJsonValue &value)
{
    switch (spec.type) {
    case ParamType::Int: {
        if (!value.isDouble() || jsonTypeName(value) != QStringLiteral("integer"))
            return QStringLiteral("expected an integer, got %1").arg(describe(value));
        return checkRange(spec, value.toDouble());
    }
    case ParamType::Float:
        if (!value.isDouble())
            return QStringLiteral("expected a number, got %1").arg(describe(value));
        return checkRange(spec, value.toDouble());
    case ParamType::Bool:
        if (!value.isBool())
            return QStringLiteral("expected true or false, got %1").arg(describe(value));
        return QString();
    case ParamType::Choice:
        if (!value.isString())
            return QStringLiteral("expected one of %1, got %2").arg(spec.choices.join(QStringLiteral(", ")), describe(value));
        if (!spec.choices.contains(value.toString()))
            return QStringLiteral("expected one of %1, got \"%2\"").arg(spec.choices.join(QStringLiteral(", ")), value.toString());
        return QString();
    case ParamType::String:
    case ParamType::Path:
        if (!value.isString())
            return QStringLiteral("expected a string, got %1").arg(describe(value));
        return QString();
    case ParamType::FloatList: {
        // A list whose default is empty (an optional setting such as training.profile_steps) may be empty.
        const bool mayBeEmpty = spec.defaultValue.isArray() && spec.defaultValue.toArray().isEmpty();
        if (!value.isArray() || (value.toArray().isEmpty() && !mayBeEmpty))
            return QStringLiteral("expected a non-empty list of numbers, got %1").arg(describe(value));
        for (const QJsonValue &item : value.toArray()) {
            if (!item.isDouble())
                return QStringLiteral("expected a list of numbers, found %1").arg(describe(item));
            const QString range = checkRange(spec, item.toDouble());
            if (!range.isEmpty())
                return range;
        }
        return QString();
    }
    }
    return QString();
}

QJsonValue parseParamText(const ParamSpec &spec, const QString &text, QString *error)
{
    const QString t = text.trimmed();
    bool ok = false;
    QJsonValue value(QJsonValue::Undefined);
    switch (spec.type) {
    case ParamType::Int: {
        const qint64 v = t.toLongLong(&ok);
        if (ok)
            value = QJsonValue(v);
        else if (error)
            *error = QStringLiteral("expected an integer, got \"%1\"").arg(printableExcerpt(text, 60));
        break;
    }
    case ParamType::Float: {
        const double v = t.toDouble(&ok);
        if (ok)
            value = QJsonValue(v);
        else if (error)
            *error = QStringLiteral("expected a number, got \"%1\"").arg(printableExcerpt(text, 60));
        break;
    }
    case ParamType::Bool: {
        const QString lower = t.toLower();
        if (lower == QStringLiteral("true") || lower == QStringLiteral("1") || lower == QStringLiteral("yes"))
            value = true;
        else if (lower == QStringLiteral("false") || lower == QStringLiteral("0") || lower == QStringLiteral("no"))
            value = false;
        else if (error)
            *error = QStringLiteral("expected true or false, got \"%1\"").arg(printableExcerpt(text, 60));
        break;
    }
    case ParamType::Choice:
        value = t;
        break;
    case ParamType::String:
    case ParamType::Path:
        value = text;
        break;
    case ParamType::FloatList: {
        QJsonArray array;
        QString body = t;
        if (body.startsWith(QLatin1Char('[')) && body.endsWith(QLatin1Char(']')))
            body = body.mid(1, body.size() - 2);
        for (const QString &part : body.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const double v = part.trimmed().toDouble(&ok);
            if (!ok) {
                if (error)
                    *error = QStringLiteral("expected a comma-separated list of numbers, got \"%1\"").arg(printableExcerpt(text, 60));
                return QJsonValue(QJsonValue::Undefined);
            }
            array.append(v);
        }
        value = array;
        break;
    }
    }
    if (value.isUndefined())
        return value;
    const QString problem = checkParamValue(spec, value);
    if (!problem.isEmpty()) {
        if (error)
            *error = problem;
        return QJsonValue(QJsonValue::Undefined);
    }
    return value;
}

QString paramValueText(const QJsonValue &value)
{
    if (value.isArray()) {
        QStringList parts;
        for (const QJsonValue &item : value.toArray())
            parts << paramValueText(item);
        return parts.join(QLatin1Char(','));
    }
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isDouble())
        return QString::number(value.toDouble(), 'g', 10);
    if (value.isString())
        return value.toString();
    return jsonTypeName(value);
}

} // namespace ty
