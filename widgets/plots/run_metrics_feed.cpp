#include "run_metrics_feed.h"

#include "run_database.h"

#include <QTimer>

namespace ty {

RunMetricsFeed::RunMetricsFeed(QObject *parent) : QObject(parent), m_timer(new QTimer(this))
{
    m_timer->setInterval(kDefaultPollMs);
    connect(m_timer, &QTimer::timeout, this, &RunMetricsFeed::poll);
    m_isLive = [](qint64) { return true; };
}

void RunMetricsFeed::setDatabase(RunDatabase *db)
{
    m_db = db;
    m_cursors.clear();
    m_wasLive.clear();
    m_timer->stop();
}

void RunMetricsFeed::setPollInterval(int milliseconds) { m_timer->setInterval(std::max(10, milliseconds)); }

void RunMetricsFeed::addRun(qint64 runId)
{
    if (!m_db || m_cursors.contains(runId))
        return;
    m_cursors.insert(runId, 0);
    m_wasLive.insert(runId, true);
    read(runId);
    if (!m_timer->isActive())
        m_timer->start();
}

void RunMetricsFeed::removeRun(qint64 runId)
{
    m_cursors.remove(runId);
    m_wasLive.remove(runId);
    if (m_cursors.isEmpty())
        m_timer->stop();
}

void RunMetricsFeed::reloadRun(qint64 runId)
{
    if (!m_cursors.contains(runId))
        return addRun(runId);
    m_cursors.insert(runId, 0);
    m_wasLive.insert(runId, true);
    Q_EMIT runCleared(runId);
    read(runId);
}

void RunMetricsFeed::poll()
{
    const QList<qint64> ids = m_cursors.keys();
    for (qint64 id : ids) {
        const bool live = m_isLive(id);
        if (live || m_wasLive.value(id))
            read(id);  // a run that just ended is read once more: its last rows
        m_wasLive.insert(id, live);
    }
}

void RunMetricsFeed::read(qint64 runId)
{
    qint64 cursor = m_cursors.value(runId);
    const Result<QList<MetricPoint>> rows = m_db->metricsAfter(runId, cursor, &cursor);
    if (!rows.ok()) {
        removeRun(runId);  // deleted meanwhile, or the file is gone
        Q_EMIT errorOccurred(rows.error().toString());
        return;
    }
    m_cursors.insert(runId, cursor);
    if (!rows.value().isEmpty())
        Q_EMIT rowsArrived(runId, rows.value());
}

} // namespace ty
