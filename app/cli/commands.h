#pragma once
// The sub-commands of trainyard-cli and the helpers they share.

#include "cli.h"
#include "cli_args.h"
#include "error.h"
#include "preset.h"

#include <QByteArray>

namespace ty::cli {

int blocksCommand(const QStringList &arguments, Io &io);
int validateCommand(const QStringList &arguments, Io &io);
int runsCommand(const QStringList &arguments, Io &io);
int exportCommand(const QStringList &arguments, Io &io);
// An ONNX model as a preset and its weights (cmd_import.cpp).
int importCommand(const QStringList &arguments, Io &io);
// Sweeps (cmd_sweep.cpp, cmd_sweeps.cpp): run or resume a sweep; list and show recorded ones.
int sweepCommand(const QStringList &arguments, Io &io);
int sweepsCommand(const QStringList &arguments, Io &io);
// The run queue (cmd_queue.cpp): list, limit, cancel, start now, move.
int queueCommand(const QStringList &arguments, Io &io);
// A run's or a sweep's report as one HTML file (cmd_report.cpp, core/reports).
int reportCommand(const QStringList &arguments, Io &io);
// The devices the training engine can use (loads the training module, so LibTorch).
int devicesCommand(const QStringList &arguments, Io &io);
// run and resume, from the training module (training_commands.h).
int trainingCommand(const QString &command, const QStringList &arguments, Io &io);

// run's options that take a value, and its flags (cmd_run.cpp, run_data_prefetch.cpp).
inline QStringList runValuedOptions()
{
    return {QStringLiteral("db"), QStringLiteral("name"), QStringLiteral("device"), QStringLiteral("init-from"),
            QStringLiteral("init-map"), QStringLiteral("overlay"), QStringLiteral("sweep"), QStringLiteral("trial"), QStringLiteral("nproc"),
            QStringLiteral("note"), QStringLiteral("tag"), QStringLiteral("tensorboard"), QStringLiteral("team")};
}
inline QStringList runFlags() { return {QStringLiteral("json"), QStringLiteral("quiet"), QStringLiteral("events")}; }

// Loads a preset file and applies the --set overrides of `args`; reports the error and returns false on failure.
bool loadPresetWithOverrides(const QString &path, const Args &args, Preset *preset, Io &io,
                             QStringList *overlaySha256 = nullptr);

// The database path from --db, else the default location.
QString databasePath(const Args &args);

void printError(Io &io, const Error &error);
// printError, plus an "error" event on stdout when --events is given.
void reportError(const Error &error, const Args &args, Io &io);
void printJson(Io &io, const QJsonValue &value);
// An array printed element by element, byte for byte as printJson prints the whole array, without holding it:
// for lists of thousands of runs.
class JsonArrayPrinter {
public:
    explicit JsonArrayPrinter(Io &io);
    void add(const QJsonObject &element);
    void finish();

private:
    void writePending();

    Io &m_io;
    QByteArray m_pending;  // written 64 KB at a time
    bool m_first = true;
};
// The "error" event of --events (docs/events.md), one JSON line.
void writeErrorEvent(QTextStream &out, const Error &error);

} // namespace ty::cli
