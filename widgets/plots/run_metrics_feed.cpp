#include "run_metrics_feed.h"

#include "run_database.h"
#include "run_epoch_length.h"

namespace ty {

RunMetricsFeed::RunMetricsFeed(QObject *parent) : QObject(parent)
{
    m_isLive = [](qint64) { return true; };
}

void RunMetricsFeed::setDatabase(RunDatabase *db)
{
    m_db = db;
    m_cursors.clear();
    m_wasLive.clear();
    m_stagesSeen.clear();
    m_stepsPerEpoch.clear();
}

void RunMetricsFeed::addRun(qint64 runId)
{
    if (!m_db || m_cursors.contains(runId))
        return;
    m_cursors.insert(runId, 0);
    m_wasLive.insert(runId, true);
    read(runId);
}

void RunMetricsFeed::removeRun(qint64 runId)
{
    m_cursors.remove(runId);
    m_wasLive.remove(runId);
    m_stagesSeen.remove(runId);
    m_stepsPerEpoch.remove(runId);
}

void RunMetricsFeed::reloadRun(qint64 runId)
{
    if (!m_cursors.contains(runId))
        return addRun(runId);
    m_cursors.insert(runId, 0);
    m_wasLive.insert(runId, true);
    m_stagesSeen.remove(runId);
    Q_EMIT runCleared(runId);
    read(runId);
}

void RunMetricsFeed::poll()
{
    if (!m_db)
        return;
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
    const bool first = cursor == 0;
    const Result<QList<MetricPoint>> rows = m_db->metricsAfter(runId, cursor, &cursor);
    if (!rows.ok()) {
        removeRun(runId);  // deleted meanwhile, or the file is gone
        Q_EMIT errorOccurred(rows.error().toString());
        return;
    }
    m_cursors.insert(runId, cursor);
    if (!rows.value().isEmpty())
        Q_EMIT rowsArrived(runId, rows.value());
    if ((first || !rows.value().isEmpty()) && m_cursors.contains(runId)) {
        readStages(runId);
        if (!m_stepsPerEpoch.contains(runId))
            readStepsPerEpoch(runId);
    }
}

void RunMetricsFeed::readStepsPerEpoch(qint64 runId)
{
    const Result<RunInfo> info = m_db->run(runId);
    const Result<QList<RunEvent>> events = m_db->events(runId);
    if (!info.ok() || !events.ok())
        return;
    const qint64 steps = recordedStepsPerEpoch(info.value().preset, events.value());
    if (steps <= 0)
        return;  // the worker has not started training yet: asked again with the next rows
    m_stepsPerEpoch.insert(runId, steps);
    Q_EMIT stepsPerEpochRead(runId, steps);
}

void RunMetricsFeed::readStages(qint64 runId)
{
    const Result<QList<StageRecord>> stages = m_db->stages(runId);
    if (!stages.ok())
        return;  // the rows were read: a problem here is not worth dropping the run for
    QString seen;
    for (const StageRecord &stage : stages.value())
        seen += QStringLiteral("%1\n%2\n%3\n%4\n")
                    .arg(QString::number(stage.index), stage.name, QString::number(stage.startStep),
                         QString::number(stage.endStep));
    const auto it = m_stagesSeen.constFind(runId);
    if (it != m_stagesSeen.constEnd() && *it == seen)
        return;
    m_stagesSeen.insert(runId, seen);
    Q_EMIT stagesRead(runId, stages.value());
}

} // namespace ty
