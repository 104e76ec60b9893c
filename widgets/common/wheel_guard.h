#pragma once
// Fields that take the mouse wheel only once the user has clicked into them, as in Qt Creator and Blender: over a
// field that has no focus, the wheel scrolls the page around it (the inspector's scroll area) instead of changing
// the value. Without this, scrolling down the inspector changed every spin box and choice it passed over.

class QWidget;

namespace ty {

// Gives `field` (a spin box, combo box, slider...) the wheel only while it has focus, and focus only by click or
// Tab, not by the wheel. Unfocused, the wheel goes to the nearest enclosing scroll area, if any.
void takeWheelOnlyWhenFocused(QWidget *field);

} // namespace ty
