#pragma once
// Runs side by side: one row per metric with its best value, and below it the minimum, maximum, last value and
// sample count; one column per run (the baseline first), headed by its number ("#12", in the run's colour, the
// whole name as tooltip) so that many runs fit. The metric names are the table's row header, which stays in
// place while the runs scroll sideways. With a baseline, every other run's best shows its difference to the
// baseline's. The task's metrics come first (val/*, then test/*, train/* and any others, each group by name);
// the runs' speed/* metrics are folded into one group row at the end, "▸ speed (8 metrics)", which a click on
// it unfolds (and folds again), a choice kept while the runs change. Reads RunDatabase::metricSummaries (no
// metric rows).
//
// Ownership and threads: the database is not owned and is only used during setRuns(); GUI thread.

#include "run_summaries.h"

#include <QList>
#include <QMap>
#include <QStringList>
#include <QTableWidget>

namespace ty {

class RunDatabase;

class RunComparisonView : public QTableWidget {
    Q_OBJECT
public:
    explicit RunComparisonView(QWidget *parent = nullptr);

    // Shows `runIds` (the baseline, when not 0, first even if not among them). Returns false when a run could
    // not be read (it is left out).
    bool setRuns(RunDatabase *db, const QList<qint64> &runIds, qint64 baselineId = 0);
    QList<qint64> shownRuns() const { return m_shown; }
    // The text of a cell: metric row ("val/accuracy"), statistic ("best", "min", "max", "last", "count"), run.
    QString cellText(const QString &metric, const QString &statistic, qint64 runId) const;
    // The row of a metric's statistic (a folded speed metric's too, hidden), -1 when no run has the metric.
    int rowOf(const QString &metric, const QString &statistic) const;
    // The metrics in the order of their rows (speed/* last, whether unfolded or not).
    QStringList shownMetrics() const { return m_metrics; }

    // The speed/* group: its row (-1 when no run has speed metrics) and whether its metrics' rows are shown.
    int speedGroupRow() const { return m_speedRow; }
    bool speedUnfolded() const { return m_speedUnfolded; }
    void setSpeedUnfolded(bool unfolded);

private:
    using RunSummaries = QMap<QString, MetricSummary>;  // one run's, by metric
    // The best row of `metric` and its statistics under it, from `row` on; returns the row after them.
    int addMetricRows(int row, const QString &metric, const QList<RunSummaries> &runs, bool hasBaseline);
    void addSpeedGroupRow(int row, int metricCount);
    void showSpeedRows();

    QList<qint64> m_shown;
    QStringList m_metrics;
    int m_speedRow = -1;
    bool m_speedUnfolded = false;
};

} // namespace ty
