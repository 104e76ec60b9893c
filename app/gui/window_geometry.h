#pragma once
// Where the main window goes when it opens: geometry saved on a larger screen, or at a smaller scale factor, can
// be larger than the screen the window now opens on, or lie partly off it. The window then shrinks to the screen's
// available area (less its frame) and is centred on it; one that fits but sticks out moves back inside.
// A pure function; the window applies it after restoring its geometry.

#include <QMargins>
#include <QRect>

namespace ty {

// `window`: the client area (QWidget::geometry), `frame`: the frame around it (title bar, borders), `available`:
// the screen's available geometry. Returns the client area to use; `window` itself when it already fits.
QRect fitWindowToScreen(const QRect &window, const QRect &available, const QMargins &frame = QMargins());

} // namespace ty
