# scikit-learn's figures for the predictions test_classifier_curves_sklearn.cpp writes: one line "CLASSES", then one
# line per sample, "LABEL P0 P1 ...". Prints one JSON object: the headline ROC AUC and average precision (binary: the
# positive class's; else roc_auc_score(multi_class="ovr") and the macro mean of average_precision_score), and per
# class roc_auc_score, average_precision_score, roc_curve and precision_recall_curve one-vs-rest, or the error
# scikit-learn raises. Run by Debian's /usr/bin/python3 with python3-sklearn.
import json
import sys

import numpy as np
from sklearn.metrics import average_precision_score, precision_recall_curve, roc_auc_score, roc_curve


def attempt(function):
    try:
        value = function()
        return value.tolist() if isinstance(value, np.ndarray) else float(value)
    except ValueError as error:
        return {"error": str(error)}


def main(path):
    with open(path) as f:
        classes = int(f.readline())
        rows = np.loadtxt(f, ndmin=2)
    labels = rows[:, 0].astype(int)
    scores = rows[:, 1:]
    assert scores.shape[1] == classes
    out = {"classes": []}
    if classes == 2:
        out["roc_auc"] = attempt(lambda: roc_auc_score(labels, scores[:, 1]))
        out["average_precision"] = attempt(lambda: average_precision_score(labels, scores[:, 1]))
    else:
        out["roc_auc"] = attempt(lambda: roc_auc_score(labels, scores, multi_class="ovr", average="macro",
                                                      labels=list(range(classes))))
    for c in range(classes):
        positive = (labels == c).astype(int)
        column = scores[:, c]
        entry = {
            "roc_auc": attempt(lambda: roc_auc_score(positive, column)),
            "average_precision": attempt(lambda: average_precision_score(positive, column)),
        }
        if 0 < positive.sum() < len(positive):
            fpr, tpr, _ = roc_curve(positive, column)
            precision, recall, _ = precision_recall_curve(positive, column)
            entry["fpr"], entry["tpr"] = fpr.tolist(), tpr.tolist()
            entry["precision"], entry["recall"] = precision.tolist(), recall.tolist()
        out["classes"].append(entry)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
