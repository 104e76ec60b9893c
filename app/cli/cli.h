#pragma once
// trainyard-cli as a function, so tests run it in-process with captured output.
//
// Exit codes (docs/cli.md): 0 success, 1 the run failed or diverged, 2 bad input or usage, 130 stopped by
// Ctrl-C (SIGINT) or SIGTERM.

#include <QStringList>
#include <QTextStream>

#include <atomic>

namespace ty::cli {

enum ExitCode { Success = 0, RunFailed = 1, BadInput = 2, Stopped = 130 };

struct Io {
    QTextStream &out;
    QTextStream &err;
    bool terminal = false;  // stderr is a terminal: draw a live progress bar
};

// `arguments` without the program name: {"run", "preset.json", "--set", "opt.lr=0.1"}.
int runCli(const QStringList &arguments, Io &io);

// Set by the signal handler of main(); polled by a training run.
std::atomic<bool> &stopFlag();
// Makes stopFlag() return `flag`: the training module shares the flag of the executable that loaded it.
void shareStopFlag(std::atomic<bool> *flag);

} // namespace ty::cli
