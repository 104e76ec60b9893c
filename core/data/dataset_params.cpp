#include "dataset_params.h"

#include "json_io.h"

#include <QDir>

#include <cmath>

namespace ty {

DatasetParams::DatasetParams(const DatasetRequest &request) : m_request(request) {}

void DatasetParams::fail(const QString &field, const QString &message)
{
    if (m_failed)
        return;
    m_failed = true;
    m_error = error(field, message);
}

Error DatasetParams::error(const QString &field, const QString &message, const QString &file) const
{
    Error e;
    e.message = message;
    e.node = m_request.nodeId;
    e.field = field;
    e.file = file;
    return e;
}

Error DatasetParams::withContext(Error error, const QString &field) const
{
    if (error.node.isEmpty())
        error.node = m_request.nodeId;
    if (error.field.isEmpty())
        error.field = field;
    return error;
}

int64_t DatasetParams::integer(const QString &name, int64_t fallback, int64_t minimum, int64_t maximum)
{
    const QJsonValue value = m_request.params.value(name);
    if (value.isUndefined() || value.isNull())
        return fallback;
    const double number = value.toDouble(std::nan(""));
    if (!value.isDouble() || !std::isfinite(number) || number != std::floor(number)) {
        fail(name, QStringLiteral("expected an integer, got %1").arg(jsonTypeName(value)));
        return fallback;
    }
    if (number < double(minimum) || number > double(maximum)) {
        fail(name, QStringLiteral("must be between %1 and %2, got %3").arg(minimum).arg(maximum).arg(number, 0, 'g', 17));
        return fallback;
    }
    return int64_t(number);
}

double DatasetParams::number(const QString &name, double fallback, double minimum, double maximum)
{
    const QJsonValue value = m_request.params.value(name);
    if (value.isUndefined() || value.isNull())
        return fallback;
    const double number = value.toDouble(std::nan(""));
    if (!value.isDouble() || !std::isfinite(number)) {
        fail(name, QStringLiteral("expected a number, got %1").arg(jsonTypeName(value)));
        return fallback;
    }
    if (number < minimum || number > maximum) {
        fail(name, QStringLiteral("must be between %1 and %2, got %3").arg(minimum).arg(maximum).arg(number));
        return fallback;
    }
    return number;
}

bool DatasetParams::boolean(const QString &name, bool fallback)
{
    const QJsonValue value = m_request.params.value(name);
    if (value.isUndefined() || value.isNull())
        return fallback;
    if (!value.isBool()) {
        fail(name, QStringLiteral("expected true or false, got %1").arg(jsonTypeName(value)));
        return fallback;
    }
    return value.toBool();
}

QString DatasetParams::string(const QString &name, const QString &fallback)
{
    const QJsonValue value = m_request.params.value(name);
    if (value.isUndefined() || value.isNull())
        return fallback;
    if (!value.isString()) {
        fail(name, QStringLiteral("expected a string, got %1").arg(jsonTypeName(value)));
        return fallback;
    }
    return value.toString();
}

QString DatasetParams::choice(const QString &name, const QString &fallback, const QStringList &choices)
{
    const QString value = string(name, fallback);
    if (!choices.contains(value)) {
        fail(name, QStringLiteral("unknown value '%1' (expected one of: %2)").arg(value, choices.join(QStringLiteral(", "))));
        return fallback;
    }
    return value;
}

QString DatasetParams::path(const QString &name, const QString &fallback)
{
    const QString value = string(name, fallback).trimmed();
    if (value.isEmpty())
        return QString();
    if (QDir::isAbsolutePath(value) || m_request.baseDir.isEmpty())
        return QDir::cleanPath(value);
    return QDir::cleanPath(QDir(m_request.baseDir).filePath(value));
}

} // namespace ty
