#include "trainer.h"

#include "detail/collectives.h"
#include "detail/training_run.h"

namespace ty {

namespace {

QString firstLine(const std::exception &e)
{
    return QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0);
}

} // namespace

PreparedTraining::PreparedTraining(std::unique_ptr<detail::TrainingRun> run) : m_run(std::move(run)) {}
PreparedTraining::~PreparedTraining() = default;

const TrainStart &PreparedTraining::info() const
{
    return m_run->start();
}

void PreparedTraining::setRunFolder(const QString &folder, qint64 runId, const QList<TrainOptions::OwnedCheckpoint> &owned)
{
    m_run->setRunFolder(folder, runId, owned);
}

TrainResult PreparedTraining::run(TrainObserver &observer)
{
    try {
        return m_run->run(observer);
    } catch (const detail::PeerLost &e) {
        return m_run->interrupted(QString::fromUtf8(e.what()));
    } catch (const std::exception &e) {
        TrainResult result;
        result.outcome = TrainOutcome::Failed;
        result.message = QStringLiteral("training failed: %1").arg(firstLine(e));
        return result;
    }
}

LrFindResult PreparedTraining::findLearningRate(const LrFindOptions &options, const LrFindProgress &progress)
{
    LrFindResult result;
    try {
        m_run->findLearningRate(options, progress, &result);
    } catch (const std::exception &e) {
        result.failed = true;
        result.message = QStringLiteral("the learning-rate test failed: %1").arg(firstLine(e));
    }
    result.suggestions = suggestRates(suggestionPoints(result.curve));
    return result;
}

Result<std::unique_ptr<PreparedTraining>> Trainer::prepare(const Preset &preset, const TrainOptions &options)
{
    try {
        auto run = std::make_unique<detail::TrainingRun>(preset, options);
        Error error;
        bool prepared = false;
        try {
            prepared = run->prepare(&error);
        } catch (const std::exception &e) {
            if (!options.group)
                throw;
            error = Error(QStringLiteral("cannot prepare training: %1").arg(firstLine(e)));  // and the others hear of it
        }
        // Every rank of a distributed run learns whether all are ready before any trains.
        if (options.group && !run->joinRanks(prepared, &error))
            prepared = false;
        if (!prepared)
            return error;
        return std::make_unique<PreparedTraining>(std::move(run));
    } catch (const std::exception &e) {
        return Error(QStringLiteral("cannot prepare training: %1").arg(firstLine(e)));
    }
}

TrainResult Trainer::train(const Preset &preset, const TrainOptions &options, TrainObserver &observer)
{
    Result<std::unique_ptr<PreparedTraining>> prepared = prepare(preset, options);
    if (!prepared) {
        TrainResult result;
        result.outcome = TrainOutcome::Failed;
        result.message = prepared.error().message;
        result.errorNode = prepared.error().node;
        return result;
    }
    return prepared.value()->run(observer);
}

} // namespace ty
