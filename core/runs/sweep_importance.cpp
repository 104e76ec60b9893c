#include "sweep_importance.h"

#include <QCoreApplication>
#include <QJsonArray>

#include <algorithm>

namespace ty {

namespace {

ParameterColumn column(const QString &key, const QStringList &values, bool drawnLogUniform)
{
    ParameterColumn column;
    column.name = key;
    for (const QString &text : values) {
        bool ok = false;
        const double value = text.toDouble(&ok);
        if (!ok) {
            column.scale = ParameterScale::Categories;
            column.categories = values;
            column.numbers.clear();
            return column;
        }
        column.numbers.push_back(value);
    }
    const auto [low, high] = std::minmax_element(column.numbers.begin(), column.numbers.end());
    const bool positive = low != column.numbers.end() && *low > 0;
    column.scale = positive && (drawnLogUniform || *high / *low > 10) ? ParameterScale::Log : ParameterScale::Linear;
    return column;
}

} // namespace

SweepImportance sweepImportance(const SweepRecord &sweep, const QList<SweepTrialRow> &rows)
{
    SweepImportance result;
    QList<SweepTrialRow> finished;
    for (const SweepTrialRow &row : rows)
        if (row.status == QLatin1String("finished") && row.value)
            finished.append(row);
    std::sort(finished.begin(), finished.end(), [](const SweepTrialRow &a, const SweepTrialRow &b) { return a.trial < b.trial; });
    result.finishedTrials = int(finished.size());
    if (finished.size() < kMinImportanceTrials) {
        result.absentReason = QCoreApplication::translate("SweepImportance", "importance needs at least %1 finished trials; this sweep has %2")
                                  .arg(kMinImportanceTrials)
                                  .arg(finished.size());
        return result;
    }
    const QJsonObject random = sweep.spec.value(QStringLiteral("random")).toObject();
    QList<ParameterColumn> columns;
    for (const QString &key : sweepKeys(finished)) {
        QStringList values;
        for (const SweepTrialRow &row : finished)
            values.append(sweepTrialValue(row.sets, key));
        columns.append(column(key, values, random.value(key).toString().trimmed().startsWith(QLatin1String("loguniform"))));
    }
    std::vector<double> metric;
    for (const SweepTrialRow &row : finished)
        metric.push_back(*row.value);
    Result<QList<ParameterImportance>> importance = parameterImportance(columns, metric);
    if (!importance)
        result.absentReason = importance.error().message;
    else
        result.parameters = importance.value();
    return result;
}

QJsonObject sweepImportanceJson(const SweepImportance &importance)
{
    QJsonObject json{{QStringLiteral("trials"), importance.finishedTrials}};
    if (importance.parameters.isEmpty()) {
        json.insert(QStringLiteral("absent"), importance.absentReason);
        return json;
    }
    QJsonArray parameters;
    for (const ParameterImportance &p : importance.parameters)
        parameters.append(QJsonObject{{QStringLiteral("key"), p.name},
                                      {QStringLiteral("scale"), parameterScaleName(p.scale)},
                                      {QStringLiteral("importance"), p.importance},
                                      {QStringLiteral("spread"), p.spread},
                                      {QStringLiteral("spearman"), p.spearman ? QJsonValue(*p.spearman) : QJsonValue()}});
    json.insert(QStringLiteral("parameters"), parameters);
    return json;
}

} // namespace ty
