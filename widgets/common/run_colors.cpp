#include "run_colors.h"

#include <QPainter>
#include <QPixmap>

#include <array>
#include <cmath>

namespace ty::style {

namespace {

// Hues step by roughly 110 to 150 degrees from one entry to the next (blue, orange, green, crimson, violet,
// ochre, cyan, red, leaf green, orchid), so consecutive runs never get two blues or two reds; the lightness
// stays between what reads on white and what reads on the dark palette's base.
constexpr std::array<QRgb, 10> kRunPalette{
    0x3b7dd8,  // blue
    0xe07b24,  // orange
    0x25a56b,  // green
    0xd6457a,  // crimson
    0x8c66d9,  // violet
    0xb8961a,  // ochre
    0x1f9db8,  // cyan
    0xd9483b,  // red
    0x6f9e2a,  // leaf green
    0xc257c0,  // orchid
};

double linear(double channel)
{
    return channel <= 0.04045 ? channel / 12.92 : std::pow((channel + 0.055) / 1.055, 2.4);
}

double luminance(const QColor &c)
{
    return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
}

} // namespace

int runPaletteSize() { return int(kRunPalette.size()); }

QColor runPaletteColor(int index)
{
    const int n = runPaletteSize();
    return QColor(kRunPalette[size_t(((index % n) + n) % n)]);
}

QColor runColor(qint64 runId) { return runPaletteColor(int((runId - 1) % runPaletteSize())); }

QIcon runColorIcon(qint64 runId, int size)
{
    QPixmap pixmap(size, size);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(runColor(runId));
    painter.drawRoundedRect(QRectF(0.5, 0.5, size - 1, size - 1), 2, 2);
    return QIcon(pixmap);
}

double contrastRatio(const QColor &a, const QColor &b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace ty::style
