// The classifier curves in an evaluation's JSON (docs/evaluation.md): the headline figures beside the accuracy and
// a `curves` list, a class each.

#include "classifier_curves.h"

#include "saturating.h"

#include <QJsonArray>

#include <cmath>

namespace ty {

namespace {

// Curve points to 6 decimals: they are for drawing (the areas are computed from every threshold, unrounded), and
// a 200-point curve of shortest doubles would take three times the room.
QJsonArray rounded(const std::vector<double> &values)
{
    QJsonArray out;
    for (const double v : values)
        out.append(std::round(v * 1e6) / 1e6);
    return out;
}

std::vector<double> numbers(const QJsonValue &value)
{
    std::vector<double> out;
    for (const QJsonValue &v : value.toArray())
        out.push_back(v.toDouble());
    return out;
}

QJsonValue orNull(const std::optional<double> &value) { return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null); }

std::optional<double> optionalNumber(const QJsonValue &value)
{
    return value.isDouble() ? std::optional<double>(value.toDouble()) : std::nullopt;
}

QJsonObject pair(const char *xName, const char *yName, const CurvePoints &points)
{
    return QJsonObject{{QLatin1String(xName), rounded(points.x)}, {QLatin1String(yName), rounded(points.y)}};
}

CurvePoints pairFromJson(const QJsonObject &json, const char *xName, const char *yName)
{
    CurvePoints p{numbers(json.value(QLatin1String(xName))), numbers(json.value(QLatin1String(yName)))};
    if (p.x.size() != p.y.size())
        p = CurvePoints{};  // a damaged curve is none
    return p;
}

} // namespace

void curvesToJson(const ClassifierCurves &curves, QJsonObject *out)
{
    if (curves.empty())
        return;
    out->insert(QStringLiteral("roc_auc"), orNull(curves.rocAuc));
    out->insert(QStringLiteral("average_precision"), orNull(curves.averagePrecision));
    out->insert(QStringLiteral("auc_average"), curves.binary ? QStringLiteral("positive class") : QStringLiteral("macro"));
    if (curves.binary)
        out->insert(QStringLiteral("positive_class"), curves.perClass.value(1).name);
    out->insert(QStringLiteral("auc_classes"), curves.averagedClasses);
    if (!curves.note.isEmpty())
        out->insert(QStringLiteral("auc_note"), curves.note);
    QJsonArray list;
    for (const ClassCurves &c : curves.perClass) {
        QJsonObject o{{QStringLiteral("class"), c.name},
                      {QStringLiteral("index"), c.index},
                      {QStringLiteral("positives"), c.positives},
                      {QStringLiteral("negatives"), c.negatives},
                      {QStringLiteral("thresholds"), c.thresholds},
                      {QStringLiteral("roc_auc"), orNull(c.rocAuc)},
                      {QStringLiteral("average_precision"), orNull(c.averagePrecision)}};
        if (!c.reason.isEmpty())
            o.insert(QStringLiteral("reason"), c.reason);
        o.insert(QStringLiteral("roc"), pair("fpr", "tpr", c.roc));
        o.insert(QStringLiteral("pr"), pair("recall", "precision", c.precisionRecall));
        list.append(o);
    }
    out->insert(QStringLiteral("curves"), list);
}

ClassifierCurves curvesFromJson(const QJsonObject &json)
{
    ClassifierCurves r;
    const QJsonArray list = json.value(QStringLiteral("curves")).toArray();
    if (list.isEmpty())
        return r;  // an evaluation stored before the curves were
    r.binary = json.value(QStringLiteral("auc_average")).toString() == QStringLiteral("positive class");
    r.rocAuc = optionalNumber(json.value(QStringLiteral("roc_auc")));
    r.averagePrecision = optionalNumber(json.value(QStringLiteral("average_precision")));
    r.averagedClasses = json.value(QStringLiteral("auc_classes")).toInt();
    r.note = json.value(QStringLiteral("auc_note")).toString();
    for (const QJsonValue &v : list) {
        const QJsonObject o = v.toObject();
        ClassCurves c;
        c.name = o.value(QStringLiteral("class")).toString();
        c.index = o.value(QStringLiteral("index")).toInt();
        c.positives = saturatedInt64(o.value(QStringLiteral("positives")).toDouble());
        c.negatives = saturatedInt64(o.value(QStringLiteral("negatives")).toDouble());
        c.thresholds = saturatedInt64(o.value(QStringLiteral("thresholds")).toDouble());
        c.rocAuc = optionalNumber(o.value(QStringLiteral("roc_auc")));
        c.averagePrecision = optionalNumber(o.value(QStringLiteral("average_precision")));
        c.reason = o.value(QStringLiteral("reason")).toString();
        c.roc = pairFromJson(o.value(QStringLiteral("roc")).toObject(), "fpr", "tpr");
        c.precisionRecall = pairFromJson(o.value(QStringLiteral("pr")).toObject(), "recall", "precision");
        r.perClass.append(c);
    }
    return r;
}

} // namespace ty
