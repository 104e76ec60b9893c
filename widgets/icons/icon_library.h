#pragma once
// The app's SVG icons (resources/icons, compiled in through resources/trainyard.qrc). Glyphs are drawn with
// `currentColor`, tinted here when rendered: action icons take the palette's text colour at paint time, so
// they follow light and dark schemes; category glyphs go white on their category's colour. Icons render from
// vectors at the requested size, so they stay crisp on high-DPI screens.
// Thread affinity: the GUI thread (renderers are cached in a per-thread-unsafe static cache).

#include "block_descriptor.h"

#include <QIcon>

class QPainter;
class QRectF;

namespace ty::icons {

// Makes the compiled-in resources available (idempotent; the static library needs it once).
void initResources();

QIcon appIcon();
// ":/icons/actions/NAME.svg" tinted with the palette's text colour: document-open, edit-undo, zoom-fit, ...
QIcon actionIcon(const QString &name);
// Fixed-colour icons: "status-error", "status-warning", "status-ok".
QIcon statusIcon(const QString &name);
// A rounded badge in the category's colour with the white category glyph (palette, inspector).
QIcon categoryIcon(BlockCategory category);
// Draws the category glyph into `rect` in `color`, as vectors (node headers).
void paintCategoryGlyph(QPainter *painter, BlockCategory category, const QRectF &rect, const QColor &color);

// Draws the action icon NAME (":/icons/actions/NAME.svg", e.g. "lock") into `rect` in `color`, as vectors.
void paintActionGlyph(QPainter *painter, const QString &name, const QRectF &rect, const QColor &color);

QString categoryIconPath(BlockCategory category);  // ":/icons/categories/layer.svg"

} // namespace ty::icons
