#include "run_comparison_view.h"

#include "common/run_colors.h"
#include "run_database.h"

#include <QHeaderView>

#include <algorithm>
#include <cmath>
#include <utility>

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
constexpr int kMetricCountRole = Qt::UserRole + 2;

bool isSpeedMetric(const QString &metric) { return metric.startsWith(QLatin1String("speed/")); }

// The order of the rows: what the task is judged by first, then how it trained, then speed.
int metricGroup(const QString &metric)
{
    static const QStringList first{QStringLiteral("val/"), QStringLiteral("test/"), QStringLiteral("train/")};
    for (int i = 0; i < first.size(); ++i)
        if (metric.startsWith(first.at(i)))
            return i;
    return isSpeedMetric(metric) ? int(first.size()) + 1 : int(first.size());
}

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
    // The speed group folds and unfolds by a click on its name or its row.
    connect(verticalHeader(), &QHeaderView::sectionClicked, this, [this](int row) {
        if (row >= 0 && row == m_speedRow)
            setSpeedUnfolded(!m_speedUnfolded);
    });
    connect(this, &QTableWidget::cellClicked, this, [this](int row) {
        if (row >= 0 && row == m_speedRow)
            setSpeedUnfolded(!m_speedUnfolded);
    });
}

bool RunComparisonView::setRuns(RunDatabase *db, const QList<qint64> &runIds, qint64 baselineId)
{
    clear();
    clearSpans();
    setRowCount(0);
    setColumnCount(0);
    m_shown.clear();
    m_metrics.clear();
    m_speedRow = -1;
    if (!db)
        return runIds.isEmpty() && baselineId <= 0;
    QList<qint64> ids;
    if (baselineId > 0)
        ids << baselineId;
    for (qint64 id : runIds)
        if (!ids.contains(id))
            ids << id;
    bool allRead = true;
    QList<RunSummaries> summaries;
    QList<QTableWidgetItem *> headers;
    for (qint64 id : std::as_const(ids)) {
        const Result<RunInfo> info = db->run(id);
        const Result<QList<MetricSummary>> rows = db->metricSummaries(id);
        if (!info.ok() || !rows.ok()) {
            allRead = false;
            continue;
        }
        RunSummaries byName;
        for (const MetricSummary &s : rows.value()) {
            byName.insert(s.name, s);
            if (!m_metrics.contains(s.name))
                m_metrics << s.name;
        }
        summaries << byName;
        m_shown << id;
        auto *header = new QTableWidgetItem(style::runColorIcon(id), QStringLiteral("#%1").arg(RunDatabase::displayedRunId(id)));
        QString tip = QStringLiteral("#%1 %2").arg(RunDatabase::displayedRunId(id), info.value().name);
        if (id == baselineId) {
            tip += tr(" (the baseline: the other runs' best values show their difference to it)");
            QFont bold = font();
            bold.setBold(true);
            header->setFont(bold);
        }
        header->setToolTip(tip);
        headers << header;
    }
    std::sort(m_metrics.begin(), m_metrics.end(), [](const QString &a, const QString &b) {
        return std::make_pair(metricGroup(a), a) < std::make_pair(metricGroup(b), b);
    });
    const int speedCount = int(std::count_if(m_metrics.cbegin(), m_metrics.cend(), isSpeedMetric));
    setColumnCount(int(m_shown.size()));
    for (int c = 0; c < headers.size(); ++c)
        setHorizontalHeaderItem(c, headers.at(c));
    setRowCount(int(m_metrics.size() * kStatistics.size()) + (speedCount > 0 ? 1 : 0));
    const bool hasBaseline = baselineId > 0 && !m_shown.isEmpty() && m_shown.first() == baselineId;
    int row = 0;
    for (const QString &metric : std::as_const(m_metrics)) {
        if (isSpeedMetric(metric) && m_speedRow < 0)
            addSpeedGroupRow(row++, speedCount);
        row = addMetricRows(row, metric, summaries, hasBaseline);
    }
    showSpeedRows();
    resizeColumnsToContents();
    return allRead;
}

int RunComparisonView::addMetricRows(int row, const QString &metric, const QList<RunSummaries> &runs, bool hasBaseline)
{
    QFont bold = font();
    bold.setBold(true);
    const double baseBest = hasBaseline && runs.first().contains(metric) ? runs.first().value(metric).best() : std::nan("");
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
        for (int c = 0; c < runs.size(); ++c) {
            const auto s = runs.at(c).constFind(metric);
            if (s == runs.at(c).constEnd())
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
    return row;
}

void RunComparisonView::addSpeedGroupRow(int row, int metricCount)
{
    m_speedRow = row;
    auto *label = new QTableWidgetItem;
    label->setData(kStatisticRole, QStringLiteral("group"));
    label->setToolTip(tr("Step timings, throughput and memory of each run: click to show or hide them"));
    setVerticalHeaderItem(row, label);
    if (columnCount() > 0) {
        auto *cell = new QTableWidgetItem;
        cell->setData(kMetricCountRole, metricCount);
        cell->setToolTip(label->toolTip());
        cell->setForeground(palette().color(QPalette::PlaceholderText));
        setItem(row, 0, cell);
        if (columnCount() > 1)
            setSpan(row, 0, 1, columnCount());
    }
}

void RunComparisonView::setSpeedUnfolded(bool unfolded)
{
    m_speedUnfolded = unfolded;
    showSpeedRows();
}

void RunComparisonView::showSpeedRows()
{
    if (m_speedRow < 0)
        return;
    QTableWidgetItem *label = verticalHeaderItem(m_speedRow);
    label->setText(QStringLiteral("%1 speed").arg(m_speedUnfolded ? QStringLiteral("▾") : QStringLiteral("▸")));
    if (QTableWidgetItem *cell = item(m_speedRow, 0)) {
        const int count = cell->data(kMetricCountRole).toInt();
        const QString metrics = count == 1 ? tr("1 metric") : tr("%1 metrics").arg(count);
        cell->setText(m_speedUnfolded ? tr("%1: click to hide").arg(metrics) : tr("%1: click to show").arg(metrics));
    }
    for (int r = m_speedRow + 1; r < rowCount(); ++r)
        setRowHidden(r, !m_speedUnfolded);
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
