#include "run_comparison_view.h"

#include "run_database.h"

#include <QHeaderView>

#include <cmath>

namespace ty {

namespace {

QString number(double value) { return std::isnan(value) ? QStringLiteral("–") : QString::number(value, 'g', 5); }

QString withDelta(double value, double baseline)
{
    if (std::isnan(value) || std::isnan(baseline))
        return number(value);
    const double delta = value - baseline;
    return QStringLiteral("%1 (%2%3)").arg(number(value), delta >= 0 ? QStringLiteral("+") : QString(),
                                          QString::number(delta, 'g', 3));
}

const QStringList kStatistics{QStringLiteral("min"), QStringLiteral("max"), QStringLiteral("last"),
                              QStringLiteral("count")};

} // namespace

RunComparisonView::RunComparisonView(QWidget *parent) : QTreeWidget(parent)
{
    setRootIsDecorated(true);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    setSelectionMode(QAbstractItemView::NoSelection);
    setHeaderLabels({tr("Metric")});
    header()->setStretchLastSection(false);
}

bool RunComparisonView::setRuns(RunDatabase *db, const QList<qint64> &runIds, qint64 baselineId)
{
    clear();
    m_shown.clear();
    setColumnCount(1);
    setHeaderLabels({tr("Metric")});
    if (!db)
        return runIds.isEmpty() && baselineId <= 0;
    QList<qint64> ids;
    if (baselineId > 0)
        ids << baselineId;
    for (qint64 id : runIds)
        if (!ids.contains(id))
            ids << id;
    bool allRead = true;
    QList<QMap<QString, MetricSummary>> summaries;
    QStringList labels{tr("Metric")};
    QStringList metrics;
    for (qint64 id : std::as_const(ids)) {
        const Result<RunInfo> info = db->run(id);
        const Result<QList<MetricSummary>> rows = db->metricSummaries(id);
        if (!info.ok() || !rows.ok()) {
            allRead = false;
            continue;
        }
        QMap<QString, MetricSummary> byName;
        for (const MetricSummary &s : rows.value()) {
            byName.insert(s.name, s);
            if (!metrics.contains(s.name))
                metrics << s.name;
        }
        summaries << byName;
        m_shown << id;
        QString label = QStringLiteral("#%1 %2").arg(id).arg(info.value().name);
        if (id == baselineId)
            label += tr(" (baseline)");
        labels << label;
    }
    std::sort(metrics.begin(), metrics.end());
    setColumnCount(int(labels.size()));
    setHeaderLabels(labels);
    const bool hasBaseline = baselineId > 0 && !m_shown.isEmpty() && m_shown.first() == baselineId;
    for (const QString &metric : std::as_const(metrics)) {
        auto *item = new QTreeWidgetItem(this, QStringList{metric + tr(" (best)")});
        item->setData(0, Qt::UserRole, metric);
        item->setData(0, Qt::UserRole + 1, QStringLiteral("best"));
        const double baseBest = hasBaseline && summaries.first().contains(metric) ? summaries.first().value(metric).best()
                                                                                   : std::nan("");
        for (int c = 0; c < m_shown.size(); ++c) {
            const auto s = summaries.at(c).constFind(metric);
            if (s == summaries.at(c).constEnd())
                continue;
            item->setText(c + 1, hasBaseline && c > 0 ? withDelta(s->best(), baseBest) : number(s->best()));
            item->setTextAlignment(c + 1, Qt::AlignRight | Qt::AlignVCenter);
        }
        for (const QString &statistic : kStatistics) {
            auto *child = new QTreeWidgetItem(item, QStringList{statistic});
            child->setData(0, Qt::UserRole, metric);
            child->setData(0, Qt::UserRole + 1, statistic);
            for (int c = 0; c < m_shown.size(); ++c) {
                const auto s = summaries.at(c).constFind(metric);
                if (s == summaries.at(c).constEnd())
                    continue;
                const QString text = statistic == QLatin1String("min")    ? number(s->minimum)
                                   : statistic == QLatin1String("max")    ? number(s->maximum)
                                   : statistic == QLatin1String("last")   ? number(s->last)
                                                                          : QString::number(s->count);
                child->setText(c + 1, text);
                child->setTextAlignment(c + 1, Qt::AlignRight | Qt::AlignVCenter);
            }
        }
    }
    expandAll();
    for (int c = 0; c < columnCount(); ++c)
        resizeColumnToContents(c);
    return allRead;
}

QString RunComparisonView::cellText(const QString &metric, const QString &statistic, qint64 runId) const
{
    const int column = int(m_shown.indexOf(runId)) + 1;
    if (column <= 0)
        return QString();
    for (int i = 0; i < topLevelItemCount(); ++i) {
        QTreeWidgetItem *item = topLevelItem(i);
        if (item->data(0, Qt::UserRole).toString() != metric)
            continue;
        if (statistic == QLatin1String("best"))
            return item->text(column);
        for (int j = 0; j < item->childCount(); ++j)
            if (item->child(j)->data(0, Qt::UserRole + 1).toString() == statistic)
                return item->child(j)->text(column);
    }
    return QString();
}

} // namespace ty
