#include "event_kinds.h"

namespace ty {

const std::vector<EventKindInfo> &eventKinds()
{
    static const std::vector<EventKindInfo> kinds{
        {EventKind::Queued, "queued", true},
        {EventKind::Started, "started", false},
        {EventKind::Metrics, "metrics", false},
        {EventKind::Epoch, "epoch", false},
        {EventKind::Checkpoint, "checkpoint", false},
        {EventKind::Resumed, "resumed", true},
        {EventKind::Diverged, "diverged", true},
        {EventKind::EarlyStop, "early_stop", true},
        {EventKind::Stage, "stage", true},
        {EventKind::InitFrom, "init_from", true},
        {EventKind::Profile, "profile", true},
        {EventKind::Distributed, "distributed", true},
        {EventKind::Notice, "notice", true},
        {EventKind::Streaming, "streaming", true},
        {EventKind::LrReduced, "lr_reduced", true},
        {EventKind::Warning, "warning", true},
        {EventKind::Finished, "finished", false},
        {EventKind::Error, "error", false},
    };
    return kinds;
}

QString eventKindName(EventKind kind)
{
    for (const EventKindInfo &info : eventKinds())
        if (info.kind == kind)
            return QString::fromLatin1(info.name);
    return QString();
}

const EventKindInfo *eventKindNamed(const QString &name)
{
    for (const EventKindInfo &info : eventKinds())
        if (name == QLatin1String(info.name))
            return &info;
    return nullptr;
}

} // namespace ty
