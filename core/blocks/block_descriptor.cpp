#include "block_descriptor.h"

#include <QJsonArray>

#include <cmath>

namespace ty {

QString categoryName(BlockCategory category)
{
    switch (category) {
    case BlockCategory::Dataset: return QStringLiteral("dataset");
    case BlockCategory::Transform: return QStringLiteral("transform");
    case BlockCategory::Layer: return QStringLiteral("layer");
    case BlockCategory::Loss: return QStringLiteral("loss");
    case BlockCategory::Optimizer: return QStringLiteral("optimizer");
    case BlockCategory::Schedule: return QStringLiteral("schedule");
    case BlockCategory::Metric: return QStringLiteral("metric");
    }
    return QString();
}

QString portKindName(PortKind kind)
{
    switch (kind) {
    case PortKind::Tensor: return QStringLiteral("tensor");
    case PortKind::Target: return QStringLiteral("target");
    case PortKind::Loss: return QStringLiteral("loss");
    case PortKind::Schedule: return QStringLiteral("schedule");
    }
    return QString();
}

QString paramTypeName(ParamType type)
{
    switch (type) {
    case ParamType::Int: return QStringLiteral("int");
    case ParamType::Float: return QStringLiteral("float");
    case ParamType::Bool: return QStringLiteral("bool");
    case ParamType::Choice: return QStringLiteral("choice");
    case ParamType::String: return QStringLiteral("string");
    case ParamType::Path: return QStringLiteral("path");
    case ParamType::FloatList: return QStringLiteral("float list");
    }
    return QString();
}

QJsonObject ParamSpec::toJson() const
{
    QJsonObject o{{QStringLiteral("name"), name},
                  {QStringLiteral("type"), paramTypeName(type)},
                  {QStringLiteral("default"), defaultValue},
                  {QStringLiteral("doc"), doc}};
    if (std::isfinite(minimum))
        o.insert(QStringLiteral("min"), minimum);
    if (std::isfinite(maximum))
        o.insert(QStringLiteral("max"), maximum);
    if (!choices.isEmpty())
        o.insert(QStringLiteral("choices"), QJsonArray::fromStringList(choices));
    if (namesMetric)
        o.insert(QStringLiteral("names_metric"), true);
    return o;
}

const ParamSpec *BlockDescriptor::param(const QString &name) const
{
    for (const ParamSpec &spec : params)
        if (spec.name == name)
            return &spec;
    return nullptr;
}

const PortSpec *BlockDescriptor::input(const QString &name) const
{
    for (const PortSpec &port : inputs)
        if (port.name == name)
            return &port;
    return nullptr;
}

const PortSpec *BlockDescriptor::output(const QString &name) const
{
    for (const PortSpec &port : outputs)
        if (port.name == name)
            return &port;
    return nullptr;
}

QJsonValue BlockDescriptor::value(const QJsonObject &values, const QString &name) const
{
    const auto it = values.constFind(name);
    if (it != values.constEnd())
        return *it;
    const ParamSpec *spec = param(name);
    return spec ? spec->defaultValue : QJsonValue();
}

QJsonObject BlockDescriptor::effectiveParams(const QJsonObject &values) const
{
    QJsonObject out;
    for (const ParamSpec &spec : params)
        out.insert(spec.name, values.contains(spec.name) ? values.value(spec.name) : spec.defaultValue);
    return out;
}

QJsonObject BlockDescriptor::toJson() const
{
    auto ports = [](const QList<PortSpec> &list) {
        QJsonArray array;
        for (const PortSpec &port : list)
            array.append(QJsonObject{{QStringLiteral("name"), port.name},
                                     {QStringLiteral("kind"), portKindName(port.kind)},
                                     {QStringLiteral("required"), port.required},
                                     {QStringLiteral("doc"), port.doc}});
        return array;
    };
    QJsonArray paramArray;
    for (const ParamSpec &spec : params)
        paramArray.append(spec.toJson());
    return QJsonObject{{QStringLiteral("type"), typeId},
                       {QStringLiteral("category"), categoryName(category)},
                       {QStringLiteral("name"), displayName},
                       {QStringLiteral("doc"), doc},
                       {QStringLiteral("inputs"), ports(inputs)},
                       {QStringLiteral("outputs"), ports(outputs)},
                       {QStringLiteral("params"), paramArray}};
}

BlockDescriptor BlockDescriptor::withNodeIdPrefix(const QString &prefix) const
{
    BlockDescriptor out = *this;
    out.nodeIdPrefix = prefix;
    return out;
}

BlockDescriptor BlockDescriptor::yieldingTextWindows() const
{
    BlockDescriptor out = *this;
    out.yieldsTextWindows = true;
    return out;
}

BlockDescriptor BlockDescriptor::takingDataStatistics() const
{
    BlockDescriptor out = *this;
    out.takesDataStatistics = true;
    return out;
}

BlockDescriptor BlockDescriptor::measuringPerPass() const
{
    BlockDescriptor out = *this;
    out.measuredPerPass = true;
    return out;
}

} // namespace ty
