// Sweeps in the run database (schema 7) and the early-stopping rules of core/runs/sweep_pruning on synthetic
// curves: the median rule and ASHA, each direction, their warm-up and minimum counts.

#include "test_suite.h"
#include "test_runs_support.h"

#include "run_database.h"
#include "run_liveness.h"
#include "sweep_pruning.h"

#include <QJsonArray>
#include <QtTest>

using namespace ty;
using testing::Fixture;

namespace {

// Loss curves that fall from `start` by `drop` per epoch, for `epochs` epochs.
TrialCurve falling(double start, double drop, int epochs)
{
    TrialCurve curve;
    for (int epoch = 1; epoch <= epochs; ++epoch)
        curve.insert(epoch, start - drop * (epoch - 1));
    return curve;
}

PruningSettings rule(PruningRule which, bool maximize = false)
{
    PruningSettings settings;
    settings.rule = which;
    settings.maximize = maximize;
    return settings;
}

NewSweep sampleSweep() { return testing::sampleNewSweep(); }

} // namespace

class TestSweeps : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void medianRulePrunesATrialWorseThanTheMedian()
    {
        TrialCurves curves{{0, falling(1.0, 0.2, 4)}, {1, falling(0.9, 0.2, 4)}, {2, falling(1.1, 0.2, 4)}};
        curves.insert(3, TrialCurve{{1, 2.0}, {2, 1.9}});  // far worse
        const PruningDecision decision = decidePruning(rule(PruningRule::Median), curves, 3, 2, QStringLiteral("val/loss"));
        QVERIFY(decision.prune);
        QVERIFY2(decision.reason.contains(QStringLiteral("median 0.8")) && decision.reason.contains(QStringLiteral("val/loss 1.9")),
                 qPrintable(decision.reason));
        // A trial better than the median goes on; so does the same bad trial in its warm-up epoch.
        curves.insert(4, TrialCurve{{1, 0.5}, {2, 0.4}});
        QVERIFY(!decidePruning(rule(PruningRule::Median), curves, 4, 2, QString()).prune);
        QVERIFY(!decidePruning(rule(PruningRule::Median), curves, 3, 1, QString()).prune);
    }

    void medianRuleWaitsForEnoughTrials()
    {
        TrialCurves curves{{0, falling(1.0, 0.2, 3)}, {1, falling(0.9, 0.2, 3)}, {2, TrialCurve{{1, 2.0}, {2, 1.9}}}};
        // Two others reached epoch 2: fewer than the three the rule needs.
        QVERIFY(!decidePruning(rule(PruningRule::Median), curves, 2, 2, QString()).prune);
        PruningSettings two = rule(PruningRule::Median);
        two.minTrials = 2;
        QVERIFY(decidePruning(two, curves, 2, 2, QString()).prune);
    }

    void medianRuleComparesBestSoFarInEitherDirection()
    {
        // Accuracy: higher is better. Trial 3 had a good first epoch, so its best so far is above the median.
        TrialCurves curves{{0, TrialCurve{{1, 0.70}, {2, 0.80}}}, {1, TrialCurve{{1, 0.72}, {2, 0.82}}},
                           {2, TrialCurve{{1, 0.74}, {2, 0.84}}}, {3, TrialCurve{{1, 0.90}, {2, 0.60}}}};
        QVERIFY(!decidePruning(rule(PruningRule::Median, true), curves, 3, 2, QString()).prune);
        curves[3] = TrialCurve{{1, 0.50}, {2, 0.60}};
        QVERIFY(decidePruning(rule(PruningRule::Median, true), curves, 3, 2, QString()).prune);
        // The same curves read as losses: trial 3 is now the best.
        QVERIFY(!decidePruning(rule(PruningRule::Median, false), curves, 3, 2, QString()).prune);
    }

    void ashaKeepsTheBestThirdAtEachRung()
    {
        // Rungs at epochs 1, 3, 9. At epoch 3, six trials are there; the cut-off is their 1/3 quantile (losses):
        // 0.35 + (0.40 - 0.35) * 2/3, so the best two go on.
        TrialCurves curves;
        const QList<double> atThree{0.30, 0.35, 0.40, 0.50, 0.60, 0.70};
        for (int t = 0; t < atThree.size(); ++t)
            curves.insert(t, TrialCurve{{1, 1.0}, {2, 0.9}, {3, atThree.at(t)}});
        const PruningSettings asha = rule(PruningRule::Asha);
        QVERIFY(!decidePruning(asha, curves, 0, 3, QString()).prune);
        QVERIFY(!decidePruning(asha, curves, 1, 3, QString()).prune);
        const PruningDecision third = decidePruning(asha, curves, 3, 3, QStringLiteral("val/loss"));
        QVERIFY(third.prune);
        QVERIFY2(third.reason.contains(QStringLiteral("epoch-3 rung")) && third.reason.contains(QStringLiteral("cut-off 0.3833")),
                 qPrintable(third.reason));
        QVERIFY(decidePruning(asha, curves, 2, 3, QString()).prune);
        QVERIFY(decidePruning(asha, curves, 5, 3, QString()).prune);
        // Epoch 2 is no rung: nobody is judged there.
        QVERIFY(!decidePruning(asha, curves, 5, 2, QString()).prune);
        // With higher-is-better (and epochs before the rung lower than it) the order turns round.
        for (int t = 0; t < atThree.size(); ++t)
            curves[t] = TrialCurve{{1, 0.0}, {2, 0.1}, {3, atThree.at(t)}};
        QVERIFY(!decidePruning(rule(PruningRule::Asha, true), curves, 5, 3, QString()).prune);
        QVERIFY(decidePruning(rule(PruningRule::Asha, true), curves, 0, 3, QString()).prune);
    }

    void ashaJudgesOnlyWithEnoughTrialsAtTheRung()
    {
        TrialCurves curves{{0, TrialCurve{{1, 0.3}}}, {1, TrialCurve{{1, 0.9}}}};
        QVERIFY(!decidePruning(rule(PruningRule::Asha), curves, 1, 1, QString()).prune);
        curves.insert(2, TrialCurve{{1, 0.5}});
        QVERIFY(decidePruning(rule(PruningRule::Asha), curves, 1, 1, QString()).prune);
        QVERIFY(!decidePruning(rule(PruningRule::None), curves, 1, 1, QString()).prune);
    }

    void nonFiniteValuesNeverCount()
    {
        TrialCurve curve{{1, qQNaN()}, {2, 0.5}, {3, qInf()}};
        QCOMPARE(bestSoFar(curve, -1, false).value(), 0.5);
        QVERIFY(!bestSoFar(TrialCurve{{1, qQNaN()}}, -1, true).has_value());
        QCOMPARE(pruningRuleFromName(QStringLiteral("asha")), std::optional<PruningRule>(PruningRule::Asha));
        QVERIFY(!pruningRuleFromName(QStringLiteral("hyperband")).has_value());
    }

    void sweepsAreRecordedAndLinkedToTheirRuns()
    {
        Fixture f;
        QVERIFY(f.open());
        const qint64 id = f.db->createSweep(sampleSweep()).value();
        SweepRecord sweep = f.db->sweep(id).value();
        QCOMPARE(sweep.status, QStringLiteral("running"));
        QCOMPARE(sweep.trials.size(), 2);
        QCOMPARE(sweep.metric, QStringLiteral("val/accuracy"));
        QVERIFY(sweep.maximize);
        QCOMPARE(sweep.presetFile, QStringLiteral("/data/mlp.trainyard.json"));
        QCOMPARE(sweep.pid, thisProcessId());

        NewRun trial = testing::sampleNewRun(QStringLiteral("opt.lr=0.1"));
        trial.sweepId = id;
        trial.sweepTrial = 1;
        const qint64 run = f.db->createRun(trial).value();
        QCOMPARE(f.db->run(run).value().sweepId, id);
        QCOMPARE(f.db->run(run).value().sweepTrial, 1);
        // One run per trial, whoever tries to add another.
        const Result<qint64> again = f.db->createRun(trial);
        QVERIFY(!again.ok());
        QVERIFY2(again.error().message.contains(QStringLiteral("trial 1 of sweep 1 already has a run")), qPrintable(again.error().message));
        const QMap<int, RunInfo> runs = f.db->sweepRuns(id).value();
        QCOMPARE(runs.keys(), QList<int>{1});
        QCOMPARE(runs.value(1).id, run);
        QCOMPARE(f.db->run(f.newRun()).value().sweepId, qint64(0));

        QVERIFY(f.db->setSweepBestRun(id, run).ok());
        QVERIFY(f.db->setStatus(run, RunStatus::Pruned, QStringLiteral("the median rule")).ok());
        QCOMPARE(f.db->run(run).value().status, RunStatus::Pruned);
        QVERIFY(f.db->run(run).value().endedAt.isValid());
        QCOMPARE(f.db->sweep(id).value().bestRun, run);
        QCOMPARE(f.db->listSweeps().value().size(), 1);
        QVERIFY(!f.db->sweep(99).ok());
    }

    void aSweepIsClaimedByOneDriverAtATime()
    {
        Fixture f;
        QVERIFY(f.open());
        const qint64 id = f.db->createSweep(sampleSweep()).value();
        // This process drives it: no second claim.
        QVERIFY(f.db->claimSweep(id).error().message.contains(QStringLiteral("is being run by process")));
        QVERIFY(f.db->setSweepStatus(id, QStringLiteral("stopped")).ok());
        QVERIFY(f.db->sweep(id).value().endedAt.isValid());
        QVERIFY(f.db->claimSweep(id).ok());
        QCOMPARE(f.db->sweep(id).value().status, QStringLiteral("running"));
        QVERIFY(!f.db->sweep(id).value().endedAt.isValid());
        // A driver that died reads as interrupted and can be replaced.
        testing::RawSqlite raw(f.path);
        QCOMPARE(raw.exec(QStringLiteral("UPDATE sweeps SET pid = %1").arg(testing::deadProcessId())), QString());
        QCOMPARE(f.db->sweep(id).value().status, QStringLiteral("interrupted"));
        QVERIFY(f.db->claimSweep(id).ok());
        QVERIFY(f.db->setSweepStatus(id, QStringLiteral("finished")).ok());
        QVERIFY(f.db->claimSweep(id).error().message.contains(QStringLiteral("is finished")));
    }

    // The run queue: order, the limit, start now, cancel, moves, and entries of dead processes dropped.
    void queueAdmitsInOrderUnderTheLimit()
    {
        Fixture f;
        QVERIFY(f.open());
        QCOMPARE(f.db->maxRunning().value(), 0);
        QVERIFY(!f.db->setMaxRunning(-1).ok());
        QVERIFY(f.db->setMaxRunning(1).ok());
        QCOMPARE(f.db->maxRunning().value(), 1);
        const qint64 running = f.newRun(QStringLiteral("busy"));
        QVERIFY(f.db->setStatus(running, RunStatus::Running).ok());

        const qint64 a = f.db->enqueue(NewQueueEntry{QStringLiteral("a"), QStringLiteral("run")}).value();
        const qint64 b = f.db->enqueue(NewQueueEntry{QStringLiteral("b"), QStringLiteral("run")}).value();
        const qint64 c = f.db->enqueue(NewQueueEntry{QStringLiteral("c"), QStringLiteral("run")}).value();
        QueueTurn turn = f.db->takeTurn(b).value();
        QCOMPARE(turn.kind, QueueTurn::Wait);
        QCOMPARE(turn.place, 2);
        QCOMPARE(turn.waiting, 3);
        QCOMPARE(turn.occupied, 1);
        QCOMPARE(turn.limit, 1);
        QCOMPARE(f.db->takeTurn(a).value().kind, QueueTurn::Wait);

        // c moves to the front; then the running run ends and c, not a, gets the slot.
        QVERIFY(f.db->moveQueued(c, -1).ok());
        QVERIFY(f.db->moveQueued(c, -1).ok());
        QList<qint64> order;
        for (const QueueEntry &e : f.db->queueEntries().value())
            order.append(e.id);
        QCOMPARE(order, (QList<qint64>{c, a, b}));
        QVERIFY(f.db->setStatus(running, RunStatus::Finished).ok());
        QCOMPARE(f.db->takeTurn(a).value().kind, QueueTurn::Wait);
        QCOMPARE(f.db->takeTurn(c).value().kind, QueueTurn::Go);
        // Admitted, c holds the slot until it leaves (its run recorded); a still waits.
        QCOMPARE(f.db->takeTurn(a).value().occupied, 1);
        QCOMPARE(f.db->takeTurn(a).value().kind, QueueTurn::Wait);
        QVERIFY(!f.db->cancelQueued(c).ok());  // no longer waiting

        // Start now passes the limit; cancel ends a waiting entry.
        QVERIFY(f.db->startQueuedNow(b).ok());
        QCOMPARE(f.db->takeTurn(b).value().kind, QueueTurn::Go);
        QVERIFY(f.db->cancelQueued(a).ok());
        QCOMPARE(f.db->takeTurn(a).value().kind, QueueTurn::Cancelled);
        QVERIFY(f.db->leaveQueue(a).ok());
        QVERIFY(f.db->leaveQueue(b).ok());
        QVERIFY(f.db->leaveQueue(c).ok());
        QVERIFY(f.db->queueEntries().value().isEmpty());

        // Without a limit everyone goes at once.
        QVERIFY(f.db->setMaxRunning(0).ok());
        const qint64 d = f.db->enqueue(NewQueueEntry{QStringLiteral("d"), QStringLiteral("run")}).value();
        QCOMPARE(f.db->takeTurn(d).value().kind, QueueTurn::Go);
    }

    void aLimitOfTwoAdmitsTwo()
    {
        Fixture f;
        QVERIFY(f.open());
        QVERIFY(f.db->setMaxRunning(2).ok());
        QList<qint64> entries;
        for (const char *name : {"a", "b", "c"})
            entries.append(f.db->enqueue(NewQueueEntry{QString::fromLatin1(name), QStringLiteral("run")}).value());
        // The third asks first, but the first two places are the first two entries'.
        QCOMPARE(f.db->takeTurn(entries.at(2)).value().kind, QueueTurn::Wait);
        QCOMPARE(f.db->takeTurn(entries.at(1)).value().kind, QueueTurn::Go);
        QCOMPARE(f.db->takeTurn(entries.at(0)).value().kind, QueueTurn::Go);
        const QueueTurn third = f.db->takeTurn(entries.at(2)).value();
        QCOMPARE(third.kind, QueueTurn::Wait);
        QCOMPARE(third.occupied, 2);
        // The first admitted one records its run (queued) and leaves: still two slots taken.
        const qint64 run = f.newRun();
        QVERIFY(f.db->leaveQueue(entries.at(0)).ok());
        QCOMPARE(f.db->takeTurn(entries.at(2)).value().kind, QueueTurn::Wait);
        QVERIFY(f.db->setStatus(run, RunStatus::Finished).ok());
        QCOMPARE(f.db->takeTurn(entries.at(2)).value().kind, QueueTurn::Go);
        // An entry that is gone reads as such, not as cancelled.
        QVERIFY(f.db->leaveQueue(entries.at(2)).ok());
        QCOMPARE(f.db->takeTurn(entries.at(2)).value().kind, QueueTurn::Gone);
    }

    // Two resumes of one run: the first claim wins, the second is refused; only resumable runs are claimed.
    void aRunIsClaimedForResumeOnce()
    {
        Fixture f;
        QVERIFY(f.open());
        const qint64 run = f.newRun();
        QVERIFY(!f.db->claimRunForResume(run, 0).ok());  // queued: not resumable
        QVERIFY(f.db->setStatus(run, RunStatus::Stopped).ok());
        QVERIFY(f.db->claimRunForResume(run, 0).ok());
        QCOMPARE(f.db->run(run).value().status, RunStatus::Queued);
        QCOMPARE(f.db->run(run).value().pid, thisProcessId());
        QVERIFY(!f.db->run(run).value().endedAt.isValid());
        const Status second = f.db->claimRunForResume(run, 0);
        QVERIFY(!second.ok());
        QVERIFY2(second.error().message.contains(QStringLiteral("another process is resuming it")), qPrintable(second.error().message));
    }

    void queueDropsEntriesOfDeadProcesses()
    {
        Fixture f;
        QVERIFY(f.open());
        QVERIFY(f.db->setMaxRunning(1).ok());
        const qint64 ghost = f.db->enqueue(NewQueueEntry{QStringLiteral("ghost"), QStringLiteral("run")}).value();
        const qint64 me = f.db->enqueue(NewQueueEntry{QStringLiteral("me"), QStringLiteral("run")}).value();
        // The first entry's process died while admitted: its slot comes back.
        QCOMPARE(f.db->takeTurn(ghost).value().kind, QueueTurn::Go);
        QCOMPARE(f.db->takeTurn(me).value().kind, QueueTurn::Wait);
        testing::RawSqlite raw(f.path);
        QCOMPARE(raw.exec(QStringLiteral("UPDATE queue SET pid = %1 WHERE id = %2").arg(testing::deadProcessId()).arg(ghost)), QString());
        QCOMPARE(f.db->takeTurn(me).value().kind, QueueTurn::Go);
        QCOMPARE(f.db->queueEntries().value().size(), 1);

        // A waiting entry whose process was killed is not listed as waiting, even before anyone polls again.
        const qint64 killed = f.db->enqueue(NewQueueEntry{QStringLiteral("killed"), QStringLiteral("run")}).value();
        QCOMPARE(f.db->queueEntries().value().size(), 2);
        QCOMPARE(raw.exec(QStringLiteral("UPDATE queue SET pid = %1 WHERE id = %2").arg(testing::deadProcessId()).arg(killed)), QString());
        QCOMPARE(f.db->queueEntries().value().size(), 1);
        QCOMPARE(f.db->queueEntries().value().first().id, me);
    }
};

TY_TEST_CLASS(TestSweeps)

#include "test_sweeps.moc"
