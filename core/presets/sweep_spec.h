#pragma once
// A hyper-parameter sweep as data (docs/sweeps.md): the base preset, the keys searched (grid values and random
// distributions over any `--set` key), how many trials, the metric that ranks them and the early-stopping rule;
// read from the command line or a `*.trainyard-sweep.json` file, and expanded into trials with a seeded
// generator of our own, so a seed gives the same trials on every machine. Plain values; thread-safe.

#include "error.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace ty {

enum class SweepDistribution { Grid, Uniform, LogUniform, Int, Choice };

// One searched key: a grid's values, or a random distribution (low/high for uniform, loguniform and int;
// values for choice).
struct SweepDimension {
    QString key;                 // a --set key: "opt.lr", "training.batch_size", "fc1.block"
    SweepDistribution kind = SweepDistribution::Grid;
    QStringList values;          // grid values or choice items, as --set reads them
    double low = 0, high = 0;
    QString text;                // as written: "0.1,0.01" or "loguniform(1e-4,1e-1)"
};

// "KEY=V1,V2,..." (--grid). Errors name the key: an empty key or list, an empty or repeated value.
Result<SweepDimension> parseGridDimension(const QString &assignment);
// "KEY=DIST" (--random), DIST one of uniform(a,b), loguniform(a,b), int(a,b), choice(x,y,...).
// Errors: unknown distribution, unreadable bound, empty range (low >= high; int low > high; loguniform low <= 0).
Result<SweepDimension> parseRandomDimension(const QString &assignment);

struct SweepSpec {
    static constexpr int kFormatVersion = 1;
    static constexpr int kMaxTrials = 10000;

    QString name;
    QString presetFile;          // absolute; for a preset embedded in a sweep file, that file (data paths)
    QJsonObject embeddedPreset;  // the preset itself when the sweep file holds it
    QStringList overlays;        // absolute paths, merged in order
    QStringList sets;            // overrides every trial gets
    QList<SweepDimension> grid;
    QList<SweepDimension> random;
    int trials = 0;              // random draws per grid point; 0: 10 with random keys, 1 without
    int parallel = 1;            // trials trained at once
    QString metric;              // empty: val/loss
    QString goal;                // "maximize", "minimize"; empty: from the metric's name
    QString earlyStop = QStringLiteral("none");  // "none", "median", "asha"
    quint64 seed = 0;

    QString effectiveMetric() const;
    bool maximize() const;
    int drawsPerGridPoint() const;
};

// The early-stopping rules a spec may name.
QStringList sweepEarlyStopNames();
// accuracy, precision, recall, f1 and r2 are better when higher; anything else (losses, errors) when lower.
bool metricIsBetterHigher(const QString &metric);

// Checks what can be checked without the preset: at least one key, no key twice, trials, parallel, the rule and
// goal names, the number of trials. Errors name the field.
Status checkSweepSpec(const SweepSpec &spec);

// The sweep file (`format: trainyard-sweep`): "preset" is a path relative to the file or an embedded preset
// object; "grid" maps keys to value arrays, "random" keys to distribution text. Errors name the file and field.
Result<SweepSpec> sweepSpecFromJson(const QJsonObject &json, const QString &file);
// As stored in the run database and written by the app; read back by sweepSpecFromJson.
QJsonObject sweepSpecToJson(const SweepSpec &spec);

struct SweepTrial {
    int index = 0;               // 0-based, the order trials start in
    QStringList sets;            // "KEY=VALUE" for every searched key
};

// Every trial: the grid's points in order (the first key changing slowest), each with drawsPerGridPoint() random
// draws from a generator seeded by spec.seed. Error beyond kMaxTrials, or when checkSweepSpec fails.
Result<QList<SweepTrial>> expandSweep(const SweepSpec &spec);

// A trial's run name: its overrides, "opt.lr=0.003 fc1.out_features=64".
QString sweepTrialName(const SweepTrial &trial);

QJsonObject sweepTrialToJson(const SweepTrial &trial);
SweepTrial sweepTrialFromJson(const QJsonObject &json);

} // namespace ty
