#pragma once
// A one-line progress bar with ETA and live loss, redrawn in place on a terminal.

#include <QElapsedTimer>
#include <QString>
#include <QTextStream>

namespace ty::cli {

class TerminalProgress {
public:
    explicit TerminalProgress(QTextStream &stream) : m_stream(stream) { m_clock.start(); }
    void update(qint64 step, qint64 totalSteps, int epoch, int epochs, double loss);
    // The same bar with `where` in place of "epoch E/N" (the learning-rate test shows its current rate).
    void update(qint64 step, qint64 totalSteps, const QString &where, double loss);
    void clear();  // erase the bar before printing a line

private:
    QTextStream &m_stream;
    QElapsedTimer m_clock;
    bool m_drawn = false;
};

QString formatDuration(double seconds);  // "1:05", "1:02:03"

} // namespace ty::cli
