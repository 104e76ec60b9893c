#pragma once
// The colour of a run, the same in every view that shows runs (curves, stage lines, the comparison, the active
// runs, the run browser) and across restarts: it is chosen by the run's id, so run #12 is always the same hue.
// The palette is ten hues at a middle lightness, ordered so that neighbours (runs #n and #n+1, the usual pair
// to compare) sit far apart on the colour wheel, and each reads both on a white plot and on a dark one.
// Pure functions; any thread.

#include <QColor>
#include <QIcon>

namespace ty::style {

int runPaletteSize();
QColor runPaletteColor(int index);  // index modulo the palette's size
QColor runColor(qint64 runId);      // runPaletteColor(runId - 1): run #1 takes the first hue
// A small square of the run's colour, for the first cell of a run's row or header.
QIcon runColorIcon(qint64 runId, int size = 10);

// WCAG contrast ratio of two colours (1 to 21), used to keep the palette readable on either background.
double contrastRatio(const QColor &a, const QColor &b);

} // namespace ty::style
