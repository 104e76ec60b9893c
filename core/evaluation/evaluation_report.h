#pragma once
// The evaluation of one model on one split: what `trainyard-cli evaluate` prints, the run database stores and the
// Evaluate view shows. Plain values, no LibTorch: the engine fills it from the model's outputs
// (classification_scores.h, regression_scores.h) and everything else reads it.

#include "classifier_curves.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <vector>

namespace ty {

struct ClassScore {
    QString name;  // the class, or "macro avg" / "weighted avg"
    double precision = 0, recall = 0, f1 = 0;
    qint64 support = 0;  // samples whose true class this is
};

// One sample of the split as the model saw it. Classification: `label` and `predicted` are class indices and
// `confidence` the softmax probability of the predicted class. Regression: the first target and prediction, and
// `confidence` the residual's Euclidean norm over every target column.
struct EvaluatedSample {
    qint64 index = 0;  // position in the split
    double label = 0, predicted = 0, confidence = 0;
};

struct EvaluationReport {
    QString split;             // "test", "val" or "train"
    qint64 checkpointStep = -1;
    qint64 count = 0;
    bool classification = true;
    QMap<QString, double> metrics;  // the run's own loss and metric heads on this split: "loss", "accuracy", ...
    QMap<QString, QString> undefinedMetrics;  // metric heads without a value on this split ("auc" of one class), why

    // Classification.
    QStringList classes;             // class names, in index order
    std::vector<qint64> confusion;   // classes x classes, row-major: rows are true classes, columns predicted
    double accuracy = 0;
    int topK = 0;                    // the k of topKAccuracy (at most the number of classes)
    double topKAccuracy = 0;
    QList<ClassScore> perClass;
    ClassScore macroAverage, weightedAverage;
    ClassifierCurves curves;  // one-vs-rest ROC and precision-recall curves, ROC AUC and average precision

    // Regression.
    double mae = 0, rmse = 0, r2 = 0;

    // Every sample, in split order.
    std::vector<EvaluatedSample> samples;

    qint64 confusionAt(int trueClass, int predictedClass) const;
    // Classification: wrong predictions, most confident first. Regression: largest residuals first.
    QList<EvaluatedSample> worst(int limit) const;
    QString className(double index) const;  // the name, or the number when out of range
};

// The report as JSON (docs/evaluation.md): summary, per-class scores, confusion matrix, classifier curves and the
// `worstLimit` worst samples; not every sample.
QJsonObject evaluationToJson(const EvaluationReport &report, int worstLimit = 20);
// Reads what evaluationToJson wrote; its samples are the worst ones the JSON lists. Missing fields keep their
// defaults.
EvaluationReport evaluationFromJson(const QJsonObject &json);

} // namespace ty
