#include "classifier_curves.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <queue>
#include <utility>

namespace ty {

RankedScores rankScores(const std::vector<double> &rawScores, const std::vector<bool> &positive)
{
    RankedScores r;
    // A score that is not a number (the outputs of a model gone wrong) ranks lowest, all such as one threshold.
    std::vector<double> scores(rawScores);
    for (double &s : scores)
        if (std::isnan(s))
            s = -std::numeric_limits<double>::infinity();
    std::vector<size_t> order(scores.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
    double truePositives = 0, falsePositives = 0;
    for (size_t k = 0; k < order.size(); ++k) {
        (positive[order[k]] ? truePositives : falsePositives) += 1;
        // A threshold ends where the next score differs (or the samples end): ties are one point.
        if (k + 1 == order.size() || scores[order[k + 1]] != scores[order[k]]) {
            r.thresholds.push_back(scores[order[k]]);
            r.truePositives.push_back(truePositives);
            r.falsePositives.push_back(falsePositives);
        }
    }
    r.positives = qint64(truePositives);
    r.negatives = qint64(falsePositives);
    return r;
}

CurvePoints rocCurve(const RankedScores &ranked)
{
    CurvePoints c;
    if (ranked.positives == 0 || ranked.negatives == 0)
        return c;
    const std::vector<double> &fp = ranked.falsePositives, &tp = ranked.truePositives;
    const size_t n = fp.size();
    c.x.push_back(0);
    c.y.push_back(0);
    for (size_t i = 0; i < n; ++i) {
        // Kept: the ends, and a point where the step before and the step after differ (a corner).
        const bool corner = i == 0 || i + 1 == n || fp[i + 1] - 2 * fp[i] + fp[i - 1] != 0 || tp[i + 1] - 2 * tp[i] + tp[i - 1] != 0;
        if (n <= 2 || corner) {
            c.x.push_back(fp[i] / double(ranked.negatives));
            c.y.push_back(tp[i] / double(ranked.positives));
        }
    }
    return c;
}

CurvePoints precisionRecallCurve(const RankedScores &ranked)
{
    CurvePoints c;
    if (ranked.positives == 0)
        return c;
    c.x.push_back(0);
    c.y.push_back(1);
    for (size_t i = 0; i < ranked.thresholds.size(); ++i) {
        const double predicted = ranked.truePositives[i] + ranked.falsePositives[i];
        c.x.push_back(ranked.truePositives[i] / double(ranked.positives));
        c.y.push_back(predicted > 0 ? ranked.truePositives[i] / predicted : 0.0);
    }
    return c;
}

std::optional<double> rocAuc(const RankedScores &ranked)
{
    if (ranked.positives == 0 || ranked.negatives == 0)
        return std::nullopt;
    // In counts, exact while they stay below 2^53: the sum of trapezoids of width (false positives gained) and
    // mean height (true positives before and after), over positives times negatives.
    double area = 0, fpBefore = 0, tpBefore = 0;
    for (size_t i = 0; i < ranked.thresholds.size(); ++i) {
        area += (ranked.falsePositives[i] - fpBefore) * (ranked.truePositives[i] + tpBefore);
        fpBefore = ranked.falsePositives[i];
        tpBefore = ranked.truePositives[i];
    }
    return area / (2.0 * double(ranked.positives) * double(ranked.negatives));
}

std::optional<double> averagePrecision(const RankedScores &ranked)
{
    if (ranked.positives == 0)
        return std::nullopt;
    double sum = 0, tpBefore = 0;
    for (size_t i = 0; i < ranked.thresholds.size(); ++i) {
        const double tp = ranked.truePositives[i];
        sum += (tp - tpBefore) / double(ranked.positives) * (tp / (tp + ranked.falsePositives[i]));
        tpBefore = tp;
    }
    return sum;
}

CurvePoints thinnedCurve(const CurvePoints &curve, int maxPoints)
{
    const size_t n = curve.x.size();
    const size_t keep = size_t(std::max(2, maxPoints));
    if (n <= keep)
        return curve;
    // A linked list of the points still there; a heap of (area, point, version) with stale entries skipped.
    std::vector<size_t> previous(n), next(n);
    std::vector<unsigned> version(n, 0);
    for (size_t i = 0; i < n; ++i) {
        previous[i] = i - 1;  // wraps for 0, never read: the ends are never removed
        next[i] = i + 1;
    }
    const auto area = [&](size_t i) {
        const size_t a = previous[i], b = next[i];
        return std::abs((curve.x[a] - curve.x[i]) * (curve.y[b] - curve.y[i]) - (curve.x[b] - curve.x[i]) * (curve.y[a] - curve.y[i])) / 2;
    };
    struct Entry {
        double area;
        size_t point;
        unsigned version;
        bool operator>(const Entry &o) const { return area != o.area ? area > o.area : point > o.point; }
    };
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    for (size_t i = 1; i + 1 < n; ++i)
        heap.push(Entry{area(i), i, 0});
    std::vector<bool> removed(n, false);
    for (size_t left = n; left > keep && !heap.empty();) {
        const Entry e = heap.top();
        heap.pop();
        if (removed[e.point] || e.version != version[e.point])
            continue;
        removed[e.point] = true;
        --left;
        const size_t a = previous[e.point], b = next[e.point];
        next[a] = b;
        previous[b] = a;
        for (const size_t neighbour : {a, b})
            if (neighbour != 0 && neighbour + 1 != n)
                heap.push(Entry{area(neighbour), neighbour, ++version[neighbour]});
    }
    CurvePoints out;
    for (size_t i = 0; i < n; ++i)
        if (!removed[i]) {
            out.x.push_back(curve.x[i]);
            out.y.push_back(curve.y[i]);
        }
    return out;
}

int curvePointsPerCurve(int64_t classes)
{
    return int(std::clamp<int64_t>(20000 / std::max<int64_t>(1, classes), 20, 200));
}

std::vector<double> softmaxRows(const std::vector<float> &logits, int64_t classes)
{
    std::vector<double> out(logits.size());
    if (classes <= 0)
        return out;
    for (size_t row = 0; row + size_t(classes) <= logits.size(); row += size_t(classes)) {
        const float *l = logits.data() + row;
        const double top = double(*std::max_element(l, l + classes));
        double denominator = 0;
        for (int64_t c = 0; c < classes; ++c)
            denominator += std::exp(double(l[c]) - top);
        for (int64_t c = 0; c < classes; ++c)
            out[row + size_t(c)] = std::exp(double(l[c]) - top) / denominator;
    }
    return out;
}

namespace {

// Class `c`'s column of the probabilities, and which samples are of class `c`.
RankedScores rankClass(const std::vector<double> &probabilities, const std::vector<int64_t> &labels, int64_t classes, int64_t c)
{
    std::vector<double> scores(labels.size());
    std::vector<bool> positive(labels.size());
    for (size_t i = 0; i < labels.size(); ++i) {
        scores[i] = probabilities[i * size_t(classes) + size_t(c)];
        positive[i] = labels[i] == c;
    }
    return rankScores(scores, positive);
}

QString undefinedReason(const RankedScores &ranked, const QString &name)
{
    if (ranked.positives == 0)
        return QStringLiteral("no sample of class \"%1\" in the split: one-vs-rest curves need both it and others").arg(name);
    if (ranked.negatives == 0)
        return QStringLiteral("every sample of the split is of class \"%1\": one-vs-rest curves need others too").arg(name);
    return QString();
}

QString className(const QStringList &names, int64_t c)
{
    return c < names.size() && !names[int(c)].isEmpty() ? names[int(c)] : QString::number(c);
}

// The headline of per-class figures: the positive class's for two classes, else the mean of those that exist.
void average(ClassifierCurves *curves)
{
    ClassifierCurves &r = *curves;
    const int classes = int(r.perClass.size());
    r.binary = classes == 2;
    if (r.binary) {
        const ClassCurves &positive = r.perClass[1];
        r.rocAuc = positive.rocAuc;
        r.averagePrecision = positive.averagePrecision;
        r.averagedClasses = positive.rocAuc ? 1 : 0;
        r.note = positive.reason;
        return;
    }
    double rocSum = 0, apSum = 0;
    QStringList missing;
    for (const ClassCurves &c : std::as_const(r.perClass)) {
        if (!c.rocAuc) {
            missing << QStringLiteral("\"%1\"").arg(c.name);
            continue;
        }
        rocSum += *c.rocAuc;
        apSum += *c.averagePrecision;
        ++r.averagedClasses;
    }
    if (r.averagedClasses > 0) {
        r.rocAuc = rocSum / r.averagedClasses;
        r.averagePrecision = apSum / r.averagedClasses;
    }
    if (!missing.isEmpty())
        r.note = r.averagedClasses == 0
            ? QStringLiteral("no class has both samples of its own and others in the split")
            : QStringLiteral("the macro average is over %1 of %2 classes: %3 %4 no sample in the split (or only its own)")
                  .arg(r.averagedClasses).arg(classes).arg(missing.mid(0, 5).join(QStringLiteral(", ")) + (missing.size() > 5 ? QStringLiteral(", ...") : QString()),
                       missing.size() == 1 ? QStringLiteral("has") : QStringLiteral("have"));
}

} // namespace

ClassifierCurves classifierCurves(const std::vector<double> &probabilities, const std::vector<int64_t> &labels,
                                  int64_t classes, const QStringList &classNames)
{
    ClassifierCurves r;
    if (classes < 2 || probabilities.size() != labels.size() * size_t(classes))
        return r;
    const int points = curvePointsPerCurve(classes);
    for (int64_t c = 0; c < classes; ++c) {
        const RankedScores ranked = rankClass(probabilities, labels, classes, c);
        ClassCurves k;
        k.name = className(classNames, c);
        k.index = int(c);
        k.positives = ranked.positives;
        k.negatives = ranked.negatives;
        k.thresholds = qint64(ranked.thresholds.size());
        k.reason = undefinedReason(ranked, k.name);
        if (k.reason.isEmpty()) {
            k.rocAuc = rocAuc(ranked);
            k.averagePrecision = averagePrecision(ranked);
            k.roc = thinnedCurve(rocCurve(ranked), points);
            k.precisionRecall = thinnedCurve(precisionRecallCurve(ranked), points);
        }
        r.perClass.append(k);
    }
    average(&r);
    return r;
}

std::optional<double> headlineRocAuc(const std::vector<double> &probabilities, const std::vector<int64_t> &labels,
                                     int64_t classes, QString *reason)
{
    if (classes < 2 || probabilities.size() != labels.size() * size_t(classes)) {
        if (reason)
            *reason = QStringLiteral("ROC AUC needs class scores of at least two classes");
        return std::nullopt;
    }
    // Only the areas: no curves, no thinning.
    ClassifierCurves r;
    for (int64_t c = 0; c < classes; ++c) {
        const RankedScores ranked = rankClass(probabilities, labels, classes, c);
        ClassCurves k;
        k.name = QString::number(c);
        k.reason = undefinedReason(ranked, k.name);
        if (k.reason.isEmpty()) {
            k.rocAuc = rocAuc(ranked);
            k.averagePrecision = averagePrecision(ranked);
        }
        r.perClass.append(k);
    }
    average(&r);
    if (!r.rocAuc && reason)
        *reason = r.note;
    return r.rocAuc;
}

} // namespace ty
