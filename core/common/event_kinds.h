#pragma once
// The kinds of event a run reports: one list for the engine that raises them, trainyard-cli that writes them to
// the `--events` stream and the run database, the desktop app that reads them, and docs/events.md (a test checks
// the docs and the app's parser against it). A kind named anywhere else as a string is a bug.

#include <QString>

#include <vector>

namespace ty {

enum class EventKind {
    Queued, Started, Metrics, Epoch, Checkpoint, Resumed, Diverged, EarlyStop, Stage, InitFrom, Profile,
    Distributed, Notice, Streaming, LrReduced, Warning, Finished, Error,
};

struct EventKindInfo {
    EventKind kind;
    const char *name;  // the "event" field of the stream, the kind column of the run database's events
    bool note;         // carries a message and a step, shown as a note beside the run (the app's log)
};

// Every kind, in the order of docs/events.md.
const std::vector<EventKindInfo> &eventKinds();
QString eventKindName(EventKind kind);
// The kind named `name`, with whether it is a note; nullptr for a name that is no kind.
const EventKindInfo *eventKindNamed(const QString &name);

} // namespace ty
