#pragma once
// Runs side by side: one row per metric with its best value, and below it the minimum, maximum, last value and
// sample count; one column per run (the baseline first), headed by its number ("#12", in the run's colour, the
// whole name as tooltip) so that many runs fit. The metric names are the table's row header, which stays in
// place while the runs scroll sideways. With a baseline, every other run's best shows its difference to the
// baseline's. Reads RunDatabase::metricSummaries (no metric rows).
//
// Ownership and threads: the database is not owned and is only used during setRuns(); GUI thread.

#include <QList>
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
    // The row of a metric's statistic, -1 when not shown.
    int rowOf(const QString &metric, const QString &statistic) const;

private:
    QList<qint64> m_shown;
};

} // namespace ty
