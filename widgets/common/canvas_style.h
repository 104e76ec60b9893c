#pragma once
// Colours, fonts and metrics of the canvas. Category and port-kind colours are fixed hues chosen to read on
// light and dark backgrounds; everything else derives from the application palette, so the canvas follows the
// system's light or dark scheme. Pure functions; call from the GUI thread.

#include "block_descriptor.h"

#include <QColor>
#include <QFont>
#include <QPalette>

namespace ty::style {

// Node geometry, in scene units (the view's zoom scales them).
inline constexpr qreal kNodeWidth = 160;
inline constexpr qreal kHeaderHeight = 24;
inline constexpr qreal kBodyLineHeight = 18;
inline constexpr qreal kPortRowHeight = 17;
inline constexpr qreal kBottomPadding = 5;
inline constexpr qreal kPortRadius = 5;
inline constexpr qreal kCornerRadius = 6;
inline constexpr qreal kGrid = 20;

QColor categoryColor(BlockCategory category);
QString categoryTitle(BlockCategory category);  // "Datasets", "Layers", ... for the palette
QColor portColor(PortKind kind);
QColor errorColor();
QColor warningColor();
QColor okColor();

bool isDark(const QPalette &palette);
QColor canvasBackground(const QPalette &palette);
QColor gridColor(const QPalette &palette, bool major);
QColor nodeBody(const QPalette &palette);
QColor nodeBorder(const QPalette &palette);
QColor mutedText(const QPalette &palette);
QColor selectionColor(const QPalette &palette);

QFont titleFont();  // node id in the header
QFont bodyFont();   // block name
QFont smallFont();  // port labels, shapes, parameter counts

// "832", "9.2k", "201k", "3.27M": parameter counts that fit on a node; exact numbers go to tooltips.
QString compactCount(qint64 count);
QString groupedCount(qint64 count);  // "3,274,634"
// "1 node", "14 nodes" (English plurals; the app has no translations yet).
QString counted(qint64 count, const QString &singular, const QString &plural);

} // namespace ty::style
