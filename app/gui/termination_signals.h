#pragma once
// SIGTERM and SIGHUP (a session ending, `kill PID`) end the app the way Quit does for its runs: every worker
// gets its stop request and writes a checkpoint, so its run ends `stopped` rather than `interrupted`. Unsaved
// canvas edits are not asked about: nobody is there to answer.
//
// The handler only writes a byte into a socket pair; a QSocketNotifier on the GUI thread does the rest.

#include <functional>

namespace ty {

// Installs the handlers once; `beforeQuit` runs on the GUI thread, then the event loop quits.
void quitGracefullyOnTermination(std::function<void()> beforeQuit);

} // namespace ty
