#pragma once
// Notes and tags of a run from the command line: `runs note ID TEXT`, `runs tag ID TAG... [--remove]`, and
// `run ... --note TEXT --tag TAG`. They write the same records as the app's run browser (runs.notes, run_tags),
// with the app's rules for a tag: trimmed, not empty, no comma (the browser edits tags as a comma list), no
// control character, at most 100 characters.

#include "commands.h"
#include "error.h"

#include <QStringList>

namespace ty {
class RunDatabase;
}

namespace ty::cli {

// Why `tag` cannot be a tag, empty when it can.
QString tagProblem(const QString &tag);

// The --note and --tag options of `run` checked before anything starts; false after reporting the problem.
bool checkRunAnnotations(const Args &args, Io &io);
// Writes them to the new run; a failure is reported and returns false (the run is recorded anyway).
bool annotateNewRun(RunDatabase &db, qint64 id, const Args &args, Io &io);

int noteCommand(RunDatabase &db, qint64 id, const Args &args, Io &io);  // runs note ID TEXT
int tagCommand(RunDatabase &db, qint64 id, const Args &args, Io &io);   // runs tag ID TAG... [--remove]

} // namespace ty::cli
