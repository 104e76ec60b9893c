// training.profile_steps: the steps FROM to TO recorded by LibTorch's profiler (its legacy, CPU-side event
// recorder, which every LibTorch build has) into a Chrome trace in the run's folder: profile-steps-FROM-TO.json,
// which Perfetto (ui.perfetto.dev) and chrome://tracing open.

#include "detail/training_run.h"

#include "event_kinds.h"

#include <QDir>

namespace ty::detail {

void TrainingRun::startProfile()
{
    if (m_options.runFolder.isEmpty() || m_profile)
        return;  // a rank that records nothing, or a process without a run folder
    QDir(m_options.runFolder).mkpath(QStringLiteral("."));
    m_profilePath = QDir(m_options.runFolder)
                        .filePath(QStringLiteral("profile-steps-%1-%2.json").arg(m_settings.profileFrom).arg(m_settings.profileTo));
    m_profile = std::make_unique<torch::autograd::profiler::RecordProfile>(m_profilePath.toStdString());
}

void TrainingRun::finishProfile()
{
    if (!m_profile)
        return;
    m_profile.reset();  // writes the trace
    observer().onEvent(eventKindName(EventKind::Profile),
                       QStringLiteral("steps %1 to %2 traced into %3 (open it in ui.perfetto.dev or chrome://tracing)")
                           .arg(m_settings.profileFrom).arg(std::min<qint64>(m_settings.profileTo, m_position.step)).arg(m_profilePath),
                       m_position.step);
}

} // namespace ty::detail
