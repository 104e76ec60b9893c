#include "init_from_check.h"

#include "checkpoint_choice.h"
#include "training_stages.h"

namespace ty {

Issues initFromRunIssues(const Preset &preset, const QString &databasePath)
{
    const std::optional<InitFrom> init = initFrom(preset);
    if (!init || !init->fromRun() || databasePath.isEmpty())
        return {};
    const Result<RunCheckpoint> chosen = chooseRunCheckpoint(databasePath, init->run, init->checkpoint, QStringLiteral("start from"));
    if (chosen)
        return {};
    return {Issue{Severity::Error, QStringLiteral("init_from: %1").arg(chosen.error().toString()), {}, {},
                  QStringLiteral("training.init_from.run")}};
}

} // namespace ty
