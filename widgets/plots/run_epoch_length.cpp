#include "run_epoch_length.h"

#include "training_settings.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <cmath>

namespace ty {

qint64 recordedTotalSteps(const QList<RunEvent> &events)
{
    static const QRegularExpression steps(QStringLiteral("\\b(\\d+) steps\\b"));
    for (auto it = events.crbegin(); it != events.crend(); ++it) {
        if (it->kind != QLatin1String("started"))
            continue;
        const QRegularExpressionMatch match = steps.match(it->message);
        if (match.hasMatch())
            return match.captured(1).toLongLong();
    }
    return 0;
}

int presetEpochs(const QJsonObject &preset)
{
    const QJsonObject training = preset.value(QStringLiteral("training")).toObject();
    const QJsonArray stages = training.value(QStringLiteral("stages")).toArray();
    if (!stages.isEmpty()) {
        int epochs = 0;
        for (const QJsonValue &stage : stages)
            epochs += stage.toObject().value(QStringLiteral("epochs")).toInt();
        return epochs;
    }
    return TrainingSettings::fromJson(training).epochs;
}

qint64 recordedStepsPerEpoch(const QJsonObject &preset, const QList<RunEvent> &events)
{
    const qint64 total = recordedTotalSteps(events);
    const int epochs = presetEpochs(preset);
    if (total <= 0 || epochs <= 0)
        return 0;
    return std::max<qint64>(1, std::llround(double(total) / double(epochs)));
}

} // namespace ty
