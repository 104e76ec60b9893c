#pragma once
// Type and range checking of parameter values, and parsing of values typed as text (--set, inspector).

#include "block_descriptor.h"

#include <QString>

namespace ty {

// Shorthands used to declare the built-in blocks.
namespace spec {
ParamSpec intParam(const QString &name, qint64 def, double min, double max, const QString &doc);
ParamSpec floatParam(const QString &name, double def, double min, double max, const QString &doc);
ParamSpec boolParam(const QString &name, bool def, const QString &doc);
ParamSpec choiceParam(const QString &name, const QString &def, const QStringList &choices, const QString &doc);
ParamSpec stringParam(const QString &name, const QString &def, const QString &doc);
// A string naming an epoch metric of the pipeline (validation checks it against the graph's metrics).
ParamSpec metricNameParam(const QString &name, const QString &def, const QString &doc);
ParamSpec pathParam(const QString &name, const QString &def, const QString &doc);
ParamSpec floatListParam(const QString &name, const QList<double> &def, const QString &doc);
PortSpec port(const QString &name, PortKind kind, const QString &doc, bool required = true);
} // namespace spec

// Empty when `value` fits `spec`; otherwise a message such as "expected an integer, got string \"x\"" or
// "must be at most 1 (got 3)".
QString checkParamValue(const ParamSpec &spec, const QJsonValue &value);

// Turns text into a value of the parameter's type ("64" -> 64, "true" -> true, "0.5,0.5" -> [0.5, 0.5]).
// On failure returns an undefined value and sets `error`.
QJsonValue parseParamText(const ParamSpec &spec, const QString &text, QString *error);

// The value as a person types it: 64, 0.001, true, relu, 0.5,0.5.
QString paramValueText(const QJsonValue &value);

} // namespace ty
