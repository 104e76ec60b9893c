#pragma once
// One-vs-rest ROC and precision-recall curves of a classifier, their areas (ROC AUC, average precision) per class
// and averaged, from the softmax probabilities of its outputs. Computed as scikit-learn's roc_curve,
// roc_auc_score, precision_recall_curve and average_precision_score compute them (tests/core checks it against
// Debian's python3-sklearn): samples with equal scores form one threshold, the ROC AUC is the trapezoid over every
// distinct threshold and the average precision the step sum over them. Plain arrays in, no LibTorch.

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <vector>

namespace ty {

// A score column ranked against one class: at each distinct score, highest first, how many positives and
// negatives score at least as high (scikit-learn's _binary_clf_curve).
struct RankedScores {
    std::vector<double> thresholds;              // distinct scores, decreasing
    std::vector<double> truePositives, falsePositives;  // cumulative counts at each threshold
    qint64 positives = 0, negatives = 0;
};
RankedScores rankScores(const std::vector<double> &scores, const std::vector<bool> &positive);  // NaN ranks lowest

struct CurvePoints {
    std::vector<double> x, y;
};

// The ROC curve (x false positive rate, y true positive rate) from (0, 0), as roc_curve(drop_intermediate=True):
// a point whose neighbours continue it in the same direction at the same step is left out. Empty without both
// positives and negatives.
CurvePoints rocCurve(const RankedScores &ranked);
// The precision-recall curve (x recall, y precision) from (0, 1) through every threshold, highest first: the points
// of precision_recall_curve in reverse. Empty without positives.
CurvePoints precisionRecallCurve(const RankedScores &ranked);
// The trapezoid under the ROC curve over every distinct threshold; nullopt without both positives and negatives.
std::optional<double> rocAuc(const RankedScores &ranked);
// The sum over thresholds of precision times the recall gained there; nullopt without positives.
std::optional<double> averagePrecision(const RankedScores &ranked);

// At most `maxPoints` (>= 2) of a curve's points, the first and last kept: the point whose triangle with its two
// neighbours has the least area goes first, again and again (Visvalingam-Whyatt), so the shape keeps its corners.
CurvePoints thinnedCurve(const CurvePoints &curve, int maxPoints);

// The curves of one class against the rest. `rocAuc` and `averagePrecision` are null, with `reason`, when the
// split has no sample of the class, or only samples of it (scikit-learn refuses both).
struct ClassCurves {
    QString name;
    int index = 0;
    qint64 positives = 0, negatives = 0;
    qint64 thresholds = 0;  // distinct scores, before the curves were thinned
    std::optional<double> rocAuc, averagePrecision;
    QString reason;
    CurvePoints roc, precisionRecall;  // thinned to at most ClassifierCurves::pointsPerCurve points each
};

struct ClassifierCurves {
    // Two classes: the positive class's (index 1) figures, as roc_auc_score(y, p[:, 1]); more: the macro average
    // (plain mean) over the classes whose figures exist; `averagedClasses` says how many, `note` why not all.
    bool binary = false;
    std::optional<double> rocAuc, averagePrecision;
    int averagedClasses = 0;
    QString note;
    QList<ClassCurves> perClass;

    bool empty() const { return perClass.isEmpty(); }
};

// Points kept per curve: 200, fewer above 100 classes so that an evaluation keeps at most 20,000 per kind (and at
// least 20).
int curvePointsPerCurve(int64_t classes);

// The softmax of each row of `logits` (count x classes, row-major), in double, from the row's maximum: the
// probabilities scoreClassification and metric.auc rank.
std::vector<double> softmaxRows(const std::vector<float> &logits, int64_t classes);

// Every class's curves and figures from `probabilities` (count x classes, row-major) and `labels` (count class
// indices; one out of range counts as no class's). `classNames` as in scoreClassification.
ClassifierCurves classifierCurves(const std::vector<double> &probabilities, const std::vector<int64_t> &labels,
                                  int64_t classes, const QStringList &classNames);

// The headline ROC AUC alone (binary: the positive class's; else the macro average over the classes that have
// one), as metric.auc logs it; nullopt, with `reason`, when no class has one.
std::optional<double> headlineRocAuc(const std::vector<double> &probabilities, const std::vector<int64_t> &labels,
                                     int64_t classes, QString *reason = nullptr);

// The curves as an evaluation's JSON writes them (docs/evaluation.md): roc_auc, average_precision, auc_average,
// positive_class, auc_classes, auc_note and the `curves` list, inserted into `out`; nothing for no curves. Points are
// rounded to 6 decimals. curvesFromJson reads them back (no curves from JSON without them).
void curvesToJson(const ClassifierCurves &curves, QJsonObject *out);
ClassifierCurves curvesFromJson(const QJsonObject &json);

} // namespace ty
