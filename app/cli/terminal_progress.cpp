#include "terminal_progress.h"

#include <cmath>

namespace ty::cli {

QString formatDuration(double seconds)
{
    const qint64 s = qint64(std::llround(std::max(0.0, seconds)));
    if (s >= 3600)
        return QStringLiteral("%1:%2:%3").arg(s / 3600).arg((s / 60) % 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

void TerminalProgress::update(qint64 step, qint64 totalSteps, int epoch, int epochs, double loss)
{
    update(step, totalSteps, QStringLiteral("epoch %1/%2").arg(epoch).arg(epochs), loss);
}

void TerminalProgress::update(qint64 step, qint64 totalSteps, const QString &where, double loss)
{
    const double fraction = totalSteps > 0 ? double(step) / double(totalSteps) : 0.0;
    const int width = 30;
    const int filled = int(fraction * width);
    const double elapsed = m_clock.elapsed() / 1000.0;
    const double eta = fraction > 0 ? elapsed * (1.0 - fraction) / fraction : 0.0;
    m_stream << "\r[" << QString(filled, QLatin1Char('#')) << QString(width - filled, QLatin1Char('.')) << "] "
             << QString::number(int(fraction * 100)).rightJustified(3) << "%  " << where << "  step " << step << "/" << totalSteps << "  loss " << QString::number(loss, 'f', 4)
             << "  ETA " << formatDuration(eta) << "   ";
    m_stream.flush();
    m_drawn = true;
}

void TerminalProgress::clear()
{
    if (!m_drawn)
        return;
    m_stream << "\r\033[K";
    m_stream.flush();
    m_drawn = false;
}

} // namespace ty::cli
