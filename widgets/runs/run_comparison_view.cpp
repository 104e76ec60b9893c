#include "run_comparison_view.h"

#include "common/run_colors.h"
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

const QStringList kStatistics{QStringLiteral("best"), QStringLiteral("min"), QStringLiteral("max"),
                              QStringLiteral("last"), QStringLiteral("count")};

constexpr int kMetricRole = Qt::UserRole;
constexpr int kStatisticRole = Qt::UserRole + 1;

QString statisticText(const MetricSummary &s, const QString &statistic)
{
    if (statistic == QLatin1String("min"))
        return number(s.minimum);
    if (statistic == QLatin1String("max"))
        return number(s.maximum);
    if (statistic == QLatin1String("last"))
        return number(s.last);
    return QString::number(s.count);
}

} // namespace

RunComparisonView::RunComparisonView(QWidget *parent) : QTableWidget(parent)
{
    setAlternatingRowColors(true);
    setSelectionMode(QAbstractItemView::NoSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    setWordWrap(false);
    verticalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    horizontalHeader()->setDefaultAlignment(Qt::AlignRight | Qt::AlignVCenter);
    horizontalHeader()->setStretchLastSection(false);
}

bool RunComparisonView::setRuns(RunDatabase *db, const QList<qint64> &runIds, qint64 baselineId)
{
    clear();
    setRowCount(0);
    setColumnCount(0);
    m_shown.clear();
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
    QList<QTableWidgetItem *> headers;
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
        auto *header = new QTableWidgetItem(style::runColorIcon(id), QStringLiteral("#%1").arg(id));
        QString tip = QStringLiteral("#%1 %2").arg(id).arg(info.value().name);
        if (id == baselineId) {
            tip += tr(" (the baseline: the other runs' best values show their difference to it)");
            QFont bold = font();
            bold.setBold(true);
            header->setFont(bold);
        }
        header->setToolTip(tip);
        headers << header;
    }
    std::sort(metrics.begin(), metrics.end());
    setColumnCount(int(m_shown.size()));
    for (int c = 0; c < headers.size(); ++c)
        setHorizontalHeaderItem(c, headers.at(c));
    setRowCount(int(metrics.size() * kStatistics.size()));
    const bool hasBaseline = baselineId > 0 && !m_shown.isEmpty() && m_shown.first() == baselineId;
    QFont bold = font();
    bold.setBold(true);
    int row = 0;
    for (const QString &metric : std::as_const(metrics)) {
        const double baseBest = hasBaseline && summaries.first().contains(metric) ? summaries.first().value(metric).best()
                                                                                   : std::nan("");
        for (const QString &statistic : kStatistics) {
            const bool best = statistic == QLatin1String("best");
            // The best value's row is named by the metric; the others are indented under it.
            auto *label = new QTableWidgetItem(best ? metric : QStringLiteral("    ") + statistic);
            label->setData(kMetricRole, metric);
            label->setData(kStatisticRole, statistic);
            label->setToolTip(QStringLiteral("%1: %2").arg(metric, statistic));
            if (best)
                label->setFont(bold);
            setVerticalHeaderItem(row, label);
            for (int c = 0; c < m_shown.size(); ++c) {
                const auto s = summaries.at(c).constFind(metric);
                if (s == summaries.at(c).constEnd())
                    continue;
                const QString text = best ? (hasBaseline && c > 0 ? withDelta(s->best(), baseBest) : number(s->best()))
                                          : statisticText(*s, statistic);
                auto *cell = new QTableWidgetItem(text);
                cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                if (best)
                    cell->setFont(bold);
                setItem(row, c, cell);
            }
            ++row;
        }
    }
    resizeColumnsToContents();
    return allRead;
}

int RunComparisonView::rowOf(const QString &metric, const QString &statistic) const
{
    for (int r = 0; r < rowCount(); ++r) {
        const QTableWidgetItem *label = verticalHeaderItem(r);
        if (label && label->data(kMetricRole).toString() == metric && label->data(kStatisticRole).toString() == statistic)
            return r;
    }
    return -1;
}

QString RunComparisonView::cellText(const QString &metric, const QString &statistic, qint64 runId) const
{
    const int column = int(m_shown.indexOf(runId));
    const int row = rowOf(metric, statistic);
    if (column < 0 || row < 0)
        return QString();
    const QTableWidgetItem *cell = item(row, column);
    return cell ? cell->text() : QString();
}

} // namespace ty
