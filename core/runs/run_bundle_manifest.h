#pragma once
// A run bundle's manifest read back and checked whole (docs/run-database.md#run-bundles), before the importer
// writes anything: every field of every run and sweep has its kind, uuids their form, links point inside the bundle
// or at a uuid, every block lies inside the file, metric rows name a metric the run lists, and every checkpoint's
// bytes have the sha256 recorded for them. The bundle is input from elsewhere, treated as a preset is.
// Internal to ty_runs (public only because headers of a target share one folder).

#include "error.h"
#include "run_records.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVariant>

#include <vector>

namespace ty {

class RunBundleFile;

struct BundleCheckpoint {
    QVariantList columns;   // bundleCheckpointColumns()
    QString file;           // a plain file name
    QByteArray bytes;       // a view into the mapped bundle
};

struct BundleEvaluation {
    QVariantList columns;   // bundleEvaluationColumns()
    std::vector<EvaluationSampleRow> samples;
};

struct BundleRun {
    qint64 bundleId = 0;
    QString uuid;
    QString name;
    QVariantList columns;   // bundleRunColumns()
    QString sweepUuid;      // empty: not a trial
    QString parentUuid;     // empty: trained from scratch or from a file (or the parent was not known)
    QString kind = QStringLiteral("train");  // runs.kind; bundles written before schema 10 carry none
    QString resultJson;     // runs.result_json; empty for NULL
    QList<QPair<QString, QVariant>> params;
    QStringList tags;
    QList<QVariantList> events;  // bundleEventColumns()
    QList<QVariantList> stages;  // bundleStageColumns()
    std::vector<MetricPoint> metrics;
    QList<BundleCheckpoint> checkpoints;
    QList<BundleEvaluation> evaluations;
};

struct BundleSweep {
    qint64 bundleId = 0;
    QString uuid;
    QVariantList columns;   // bundleSweepColumns()
    QString bestRunUuid;
};

struct BundleManifest {
    QList<BundleSweep> sweeps;
    QList<BundleRun> runs;
};

bool isUuidText(const QString &text);

// Errors name the bundle file and the field: "runs[2].checkpoints[0].sha256: ...".
Result<BundleManifest> readBundleManifest(const RunBundleFile &file);

} // namespace ty
