#pragma once
// Sweep… (Training menu, or a parameter's context menu in the inspector). On the left, the preset's numeric
// parameters by node with their current values and allowed ranges (SweepParameterList); double-clicking one (or
// "Search ▸") adds it to the searched parameters on the right, each with a grid of values or a random
// distribution. Below: how many random draws, how many trials at once, the metric and its goal, the
// early-stopping rule and the seed. It shows how many trials that makes, or what is wrong in its own words (no
// parameter chosen, a value missing or given twice, an empty range, a value the parameter does not allow), and
// enables Start only while the sweep is valid. Without a key to start from, it searches the optimizer's
// learning rate (defaultSweepKey).
//
// Ownership: owns its widgets. Thread affinity: the GUI thread.

#include "preset.h"
#include "sweep_spec.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace ty {

class SweepParameterList;

class SweepDialog : public QDialog {
    Q_OBJECT
public:
    enum Column { KeyColumn, KindColumn, ValuesColumn };

    // `initialKey` ("opt.lr", "training.batch_size"): the first row searches it around its current value.
    SweepDialog(const Preset &preset, const QString &initialKey = QString(), QWidget *parent = nullptr);

    // The kinds a row offers, as shown: grid, uniform, loguniform, int, choice.
    static QStringList kinds();
    // Whether a row of this kind takes a range ("low, high": uniform, loguniform, int) rather than values (grid, choice).
    static bool kindTakesRange(const QString &kind);
    // Adds a row: `values` is a comma-separated list for grid and choice, "low, high" for the others.
    void addDimension(const QString &key, const QString &kind, const QString &values);
    // What double-clicking a parameter in the list does: a row for it around its current value, or, when it is
    // searched already, its row selected.
    void searchParameter(const QString &key);
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
    SweepParameterList *parameterList() const { return m_list; }
    QStringList searchedKeys() const;
    QComboBox *kindBox(int row) const;
    QLineEdit *valuesEdit(int row) const;

private:
    // sweep_dialog_checks.cpp: each row read and checked in the dialog's words, values suggested.
    Result<SweepDimension> dimensionAt(int row) const;
    QString valueProblem(const QString &key, const QString &value) const;
    QString trialProblem(const SweepTrial &trial) const;
    QString suggestion(const QString &key) const;
    static QString valuesForKind(const QString &values, const QString &kind);

    Result<SweepSpec> buildSpec() const;
    void recheck();

    Preset m_preset;
    SweepParameterList *m_list;
    QPushButton *m_searchButton;
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
