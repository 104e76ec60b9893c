#include "window_geometry.h"

#include <algorithm>

namespace ty {

QRect fitWindowToScreen(const QRect &window, const QRect &available, const QMargins &frame)
{
    if (available.isEmpty() || window.isEmpty())
        return window;
    const QRect framed = window.marginsAdded(frame);
    if (available.contains(framed))
        return window;
    const int frameWidth = frame.left() + frame.right(), frameHeight = frame.top() + frame.bottom();
    const QSize size(std::min(window.width(), available.width() - frameWidth),
                     std::min(window.height(), available.height() - frameHeight));
    QRect fitted(QPoint(), size);
    const bool shrunk = size != window.size();
    const QRect overlap = framed.intersected(available);
    const bool mostlyOff = qint64(overlap.width()) * overlap.height() < qint64(framed.width()) * framed.height() / 2;
    if (shrunk || mostlyOff) {
        fitted.moveCenter(available.center());
        // Centring rounds; the frame must still be inside.
        fitted.moveTopLeft(QPoint(std::max(fitted.left(), available.left() + frame.left()),
                                  std::max(fitted.top(), available.top() + frame.top())));
        return fitted;
    }
    // Nudged back inside, as little as it takes.
    const int left = std::clamp(window.left(), available.left() + frame.left(),
                                available.right() + 1 - frame.right() - size.width());
    const int top = std::clamp(window.top(), available.top() + frame.top(),
                               available.bottom() + 1 - frame.bottom() - size.height());
    fitted.moveTopLeft(QPoint(left, top));
    return fitted;
}

} // namespace ty
