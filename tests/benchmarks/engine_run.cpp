#include "engine_run.h"

#include "cli.h"
#include "live_tensorboard.h"
#include "preset_format.h"
#include "preset_overrides.h"
#include "run_database.h"
#include "run_recorder.h"
#include "team_replicator.h"
#include "trainer.h"

#include <QTemporaryDir>

namespace ty::bench {

namespace {

// Remembers when each training step ended.
class StepClock : public TrainObserver {
public:
    explicit StepClock(TrainObserver *forward) : m_forward(forward) {}
    void onStarted(const TrainStart &s) override { if (m_forward) m_forward->onStarted(s); }
    void onMetrics(const QList<MetricSample> &samples) override
    {
        for (const MetricSample &s : samples)
            if (s.name == QStringLiteral("train/loss"))
                times.insert(s.step, s.time);
        if (m_forward)
            m_forward->onMetrics(samples);
    }
    bool onCheckpoint(const CheckpointInfo &c) override { return !m_forward || m_forward->onCheckpoint(c); }
    void onEpochEnd(int e, qint64 s, const QMap<QString, double> &m) override { if (m_forward) m_forward->onEpochEnd(e, s, m); }
    void onEvent(const QString &k, const QString &m, qint64 s) override { if (m_forward) m_forward->onEvent(k, m, s); }
    void onProgress(qint64 s, qint64 t, int e, double l) override { if (m_forward) m_forward->onProgress(s, t, e, l); }
    bool stopRequested() override { return m_forward && m_forward->stopRequested(); }
    QHash<qint64, double> times;

private:
    TrainObserver *m_forward;
};

} // namespace

double engineSamplesPerSecond(const QString &presetName, int batch, int warmup, int steps, bool record, const QString &device,
                              const QString &tensorBoardDir, const QString &teamStore)
{
    Result<Preset> loaded = loadPreset(QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/%1.trainyard.json").arg(presetName));
    if (!loaded)
        qFatal("%s", qPrintable(loaded.error().toString()));
    Preset preset = loaded.value();
    const int total = warmup + steps;
    const Status set = applyOverrides(&preset, {QStringLiteral("training.batch_size=%1").arg(batch), QStringLiteral("training.epochs=1"),
                                                QStringLiteral("data.limit=%1").arg(total * batch + 1000),
                                                QStringLiteral("data.val_count=1000"), QStringLiteral("data.test_limit=1000"),
                                                QStringLiteral("training.checkpoint_every=0"), QStringLiteral("training.device=") + device});
    if (!set)
        qFatal("%s", qPrintable(set.error().toString()));

    QTemporaryDir dir;
    Result<std::unique_ptr<PreparedTraining>> prepared = Trainer::prepare(preset, TrainOptions{});
    if (!prepared)
        qFatal("%s", qPrintable(prepared.error().toString()));
    if (!record) {
        StepClock clock(nullptr);
        prepared.value()->run(clock);
        return double(steps) * batch / (clock.times.value(total) - clock.times.value(warmup));
    }
    const QString dbPath = dir.filePath(QStringLiteral("runs.sqlite"));
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(dbPath);
    NewRun newRun;
    newRun.name = presetName;
    newRun.preset = presetToJson(preset);
    const qint64 id = db.value()->createRun(newRun).value();
    prepared.value()->setRunFolder(db.value()->runFolder(id));
    RunWriter writer(dbPath, id);
    writer.start();
    if (!tensorBoardDir.isEmpty()) {
        Result<std::shared_ptr<TensorBoardEventFile>> file = cli::createRunEventFile(tensorBoardDir, id, presetName);
        const Status fed = file ? cli::feedTensorBoard(writer, file.value(), dbPath, id) : Status(file.error());
        if (!fed)
            qFatal("%s", qPrintable(fed.error().toString()));
    }
    TeamReplicator replicator;
    if (!teamStore.isEmpty())  // every 2 s, as trainyard-cli run's (team_store.cpp); the warning is dropped
        replicator.start(dbPath, teamStore, id, 2000, [](const QString &) {});
    QString out, err;
    QTextStream outStream(&out), errStream(&err);
    cli::Io io{outStream, errStream, false};
    cli::RunRecorder recorder(writer, io, true);
    StepClock clock(&recorder);
    prepared.value()->run(clock);
    writer.finish(RunStatus::Finished);
    replicator.stop();
    return double(steps) * batch / (clock.times.value(total) - clock.times.value(warmup));
}

} // namespace ty::bench
