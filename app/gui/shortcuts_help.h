#pragma once
// Help ▸ Keyboard Shortcuts: every shortcut of the window, read from its actions (so the list cannot go stale), by
// menu in menu order, then the window's actions that no menu shows, then the canvas keys that are not actions
// (arrow keys, Escape). GUI thread only.

#include <QList>
#include <QString>

class QMainWindow;
class QWidget;

namespace ty {

struct ShortcutEntry {
    QString group;   // the menu's title without its mnemonic ("Edit", "View ▸ Theme"), "Window" or "Canvas"
    QString action;  // the action's text without mnemonic and ellipsis ("Group into Block")
    QString keys;    // every shortcut of the action in the platform's words ("Ctrl+G"), ", " between them
};

QList<ShortcutEntry> windowShortcuts(const QMainWindow *window);
QString shortcutsHtml(const QList<ShortcutEntry> &entries);  // one table, a heading row per group
void showShortcutsDialog(QMainWindow *window);

} // namespace ty
