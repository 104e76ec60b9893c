// The JSON form of an evaluation (docs/evaluation.md), shared by `trainyard-cli evaluate --json`, the run
// database's evaluations.summary_json and the Evaluate view.

#include "evaluation_report.h"

#include "saturating.h"

#include <QJsonArray>

namespace ty {

namespace {

QJsonObject scoreToJson(const ClassScore &s)
{
    return QJsonObject{{QStringLiteral("class"), s.name}, {QStringLiteral("precision"), s.precision},
                       {QStringLiteral("recall"), s.recall}, {QStringLiteral("f1"), s.f1},
                       {QStringLiteral("support"), s.support}};
}

ClassScore scoreFromJson(const QJsonObject &o)
{
    ClassScore s;
    s.name = o.value(QStringLiteral("class")).toString();
    s.precision = o.value(QStringLiteral("precision")).toDouble();
    s.recall = o.value(QStringLiteral("recall")).toDouble();
    s.f1 = o.value(QStringLiteral("f1")).toDouble();
    s.support = saturatedInt64(o.value(QStringLiteral("support")).toDouble());
    return s;
}

} // namespace

QJsonObject evaluationToJson(const EvaluationReport &r, int worstLimit)
{
    QJsonObject metrics;
    for (auto it = r.metrics.constBegin(); it != r.metrics.constEnd(); ++it)
        metrics.insert(it.key(), it.value());
    QJsonObject out{{QStringLiteral("split"), r.split},
                    {QStringLiteral("checkpoint_step"), r.checkpointStep},
                    {QStringLiteral("count"), r.count},
                    {QStringLiteral("task"), r.classification ? QStringLiteral("classification") : QStringLiteral("regression")},
                    {QStringLiteral("metrics"), metrics}};
    if (!r.undefinedMetrics.isEmpty()) {
        QJsonObject undefined;
        for (auto it = r.undefinedMetrics.constBegin(); it != r.undefinedMetrics.constEnd(); ++it)
            undefined.insert(it.key(), it.value());
        out.insert(QStringLiteral("undefined_metrics"), undefined);
    }
    if (!r.classification) {
        out.insert(QStringLiteral("mae"), r.mae);
        out.insert(QStringLiteral("rmse"), r.rmse);
        out.insert(QStringLiteral("r2"), r.r2);
        QJsonArray residuals;
        for (const EvaluatedSample &s : r.worst(worstLimit))
            residuals.append(QJsonObject{{QStringLiteral("index"), s.index}, {QStringLiteral("target"), s.label},
                                         {QStringLiteral("predicted"), s.predicted}, {QStringLiteral("residual"), s.confidence}});
        out.insert(QStringLiteral("largest_residuals"), residuals);
        return out;
    }
    out.insert(QStringLiteral("accuracy"), r.accuracy);
    out.insert(QStringLiteral("top_k"), r.topK);
    out.insert(QStringLiteral("top_k_accuracy"), r.topKAccuracy);
    out.insert(QStringLiteral("classes"), QJsonArray::fromStringList(r.classes));
    QJsonArray confusion;
    const int n = int(r.classes.size());
    for (int t = 0; t < n; ++t) {
        QJsonArray row;
        for (int p = 0; p < n; ++p)
            row.append(r.confusionAt(t, p));
        confusion.append(row);
    }
    out.insert(QStringLiteral("confusion"), confusion);
    QJsonArray perClass;
    for (const ClassScore &s : r.perClass)
        perClass.append(scoreToJson(s));
    out.insert(QStringLiteral("per_class"), perClass);
    out.insert(QStringLiteral("macro_avg"), scoreToJson(r.macroAverage));
    out.insert(QStringLiteral("weighted_avg"), scoreToJson(r.weightedAverage));
    curvesToJson(r.curves, &out);
    QJsonArray mistakes;
    for (const EvaluatedSample &s : r.worst(worstLimit))
        mistakes.append(QJsonObject{{QStringLiteral("index"), s.index},
                                    {QStringLiteral("label"), r.className(s.label)},
                                    {QStringLiteral("predicted"), r.className(s.predicted)},
                                    {QStringLiteral("label_index"), qint64(s.label)},
                                    {QStringLiteral("predicted_index"), qint64(s.predicted)},
                                    {QStringLiteral("confidence"), s.confidence}});
    out.insert(QStringLiteral("mistakes"), mistakes);
    return out;
}

EvaluationReport evaluationFromJson(const QJsonObject &json)
{
    EvaluationReport r;
    r.split = json.value(QStringLiteral("split")).toString();
    r.checkpointStep = saturatedInt64(json.value(QStringLiteral("checkpoint_step")).toDouble(-1));
    r.count = saturatedInt64(json.value(QStringLiteral("count")).toDouble());
    r.classification = json.value(QStringLiteral("task")).toString() != QStringLiteral("regression");
    const QJsonObject metrics = json.value(QStringLiteral("metrics")).toObject();
    for (auto it = metrics.constBegin(); it != metrics.constEnd(); ++it)
        r.metrics.insert(it.key(), it.value().toDouble());
    const QJsonObject undefined = json.value(QStringLiteral("undefined_metrics")).toObject();
    for (auto it = undefined.constBegin(); it != undefined.constEnd(); ++it)
        r.undefinedMetrics.insert(it.key(), it.value().toString());
    r.mae = json.value(QStringLiteral("mae")).toDouble();
    r.rmse = json.value(QStringLiteral("rmse")).toDouble();
    r.r2 = json.value(QStringLiteral("r2")).toDouble();
    r.accuracy = json.value(QStringLiteral("accuracy")).toDouble();
    r.topK = json.value(QStringLiteral("top_k")).toInt();
    r.topKAccuracy = json.value(QStringLiteral("top_k_accuracy")).toDouble();
    for (const QJsonValue &v : json.value(QStringLiteral("classes")).toArray())
        r.classes.append(v.toString());
    const QJsonArray rows = json.value(QStringLiteral("confusion")).toArray();
    const qsizetype n = r.classes.size();
    if (rows.size() == n) {
        r.confusion.assign(size_t(n * n), 0);
        for (qsizetype t = 0; t < n; ++t) {
            const QJsonArray row = rows[t].toArray();
            for (qsizetype p = 0; p < n && p < row.size(); ++p)
                r.confusion[size_t(t * n + p)] = saturatedInt64(row[p].toDouble());
        }
    }
    for (const QJsonValue &v : json.value(QStringLiteral("per_class")).toArray())
        r.perClass.append(scoreFromJson(v.toObject()));
    r.macroAverage = scoreFromJson(json.value(QStringLiteral("macro_avg")).toObject());
    r.weightedAverage = scoreFromJson(json.value(QStringLiteral("weighted_avg")).toObject());
    r.curves = curvesFromJson(json);
    // The worst samples the JSON lists become the report's samples, so worst() gives them back.
    for (const QJsonValue &v : json.value(QStringLiteral("mistakes")).toArray()) {
        const QJsonObject m = v.toObject();
        r.samples.push_back(EvaluatedSample{saturatedInt64(m.value(QStringLiteral("index")).toDouble()), m.value(QStringLiteral("label_index")).toDouble(),
                                            m.value(QStringLiteral("predicted_index")).toDouble(), m.value(QStringLiteral("confidence")).toDouble()});
    }
    for (const QJsonValue &v : json.value(QStringLiteral("largest_residuals")).toArray()) {
        const QJsonObject m = v.toObject();
        r.samples.push_back(EvaluatedSample{saturatedInt64(m.value(QStringLiteral("index")).toDouble()), m.value(QStringLiteral("target")).toDouble(),
                                            m.value(QStringLiteral("predicted")).toDouble(), m.value(QStringLiteral("residual")).toDouble()});
    }
    return r;
}

} // namespace ty
