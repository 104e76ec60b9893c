#pragma once
// Sweep… (Training menu, or a parameter's context menu in the inspector): the keys to search, each with a grid
// of values or a random distribution, how many trials, how many at once, the metric and its goal, the
// early-stopping rule and the seed. It shows how many trials that makes, or what is wrong (a key the preset has
// not, an empty range, a value the parameter refuses), and OK only while the sweep is valid.
// Ownership: owns its widgets. Thread affinity: the GUI thread.

#include "preset.h"
#include "sweep_spec.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace ty {

class SweepDialog : public QDialog {
    Q_OBJECT
public:
    // `initialKey` ("opt.lr", "training.batch_size"): the first row searches it around its current value.
    SweepDialog(const Preset &preset, const QString &initialKey = QString(), QWidget *parent = nullptr);

    // The kinds a row offers, as shown: grid, uniform, loguniform, int, choice.
    static QStringList kinds();
    // Adds a row: `values` is a comma-separated list for grid and choice, "low, high" for the others.
    void addDimension(const QString &key, const QString &kind, const QString &values);
    void setTrials(int trials);
    void setParallel(int parallel);
    void setMetric(const QString &metric);
    void setEarlyStop(const QString &rule);

    // The sweep as entered (no preset file: the launcher adds the snapshot), and whether it is valid.
    SweepSpec spec() const;
    bool isValid() const { return m_problem.isEmpty(); }
    QString problem() const { return m_problem; }
    int trialCount() const { return m_trialCount; }
    QTableWidget *dimensions() const { return m_table; }

private:
    Result<SweepSpec> buildSpec() const;
    void recheck();
    QString suggestion(const QString &key) const;

    Preset m_preset;
    QStringList m_keys;
    QTableWidget *m_table;
    QSpinBox *m_trials;
    QSpinBox *m_parallel;
    QComboBox *m_metric;
    QComboBox *m_goal;
    QComboBox *m_earlyStop;
    QSpinBox *m_seed;
    QLabel *m_summary;
    QDialogButtonBox *m_buttons;
    QString m_problem;
    int m_trialCount = 0;
};

} // namespace ty
