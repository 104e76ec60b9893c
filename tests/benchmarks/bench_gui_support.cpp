// Event-loop helpers of the desktop app's benchmark sections.

#include "bench_gui_sections.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QTimer>

namespace ty::bench {

void runEventLoopFor(int milliseconds)
{
    QEventLoop loop;
    QTimer::singleShot(milliseconds, &loop, &QEventLoop::quit);
    loop.exec();
}

void processPendingEvents()
{
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
}

} // namespace ty::bench
