#pragma once
// The app's colour scheme: the system's (the platform's style and palette, as the app started), or a Fusion light
// or dark palette. Chosen in View ▸ Theme and kept in QSettings ("appearance/theme"); `--color-scheme` forces one
// for a single start without saving it. Widgets that paint themselves read their palette when they paint (or on
// QEvent::PaletteChange), so a change shows at once, without a restart.
// GUI thread only; the QApplication must exist.

#include <QString>

class QMenu;
class QPalette;

namespace ty {

enum class AppTheme { System, Light, Dark };

QString themeName(AppTheme theme);                                  // "system", "light", "dark"
AppTheme themeFromName(const QString &name, bool *ok = nullptr);    // System when unknown
QPalette darkPalette();

// Applies a theme to the whole application; the first call remembers the system's style and palette.
void applyTheme(AppTheme theme);
AppTheme currentTheme();  // the one applied last (System before any)
AppTheme savedTheme();    // the setting, System when none
void saveTheme(AppTheme theme);

// Adds View ▸ Theme: System, Light, Dark (checkable, the current one checked). Choosing one applies and saves it.
QMenu *addThemeMenu(QMenu *view);

} // namespace ty
