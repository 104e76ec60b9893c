#include "shortcuts_help.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSet>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace ty {

namespace {

QString plainText(QString text)
{
    text.remove(QRegularExpression(QStringLiteral("&(?!&)")));
    text.replace(QStringLiteral("&&"), QStringLiteral("&"));
    if (text.endsWith(QStringLiteral("…")))
        text.chop(1);
    return text.trimmed();
}

// What the action does; undo and redo without the edit they would undo now ("Undo Move 2 nodes").
QString actionName(const QAction *action)
{
    if (action->objectName() == QLatin1String("undo"))
        return QObject::tr("Undo");
    if (action->objectName() == QLatin1String("redo"))
        return QObject::tr("Redo");
    return plainText(action->text());
}

QString keysOf(const QAction *action)
{
    QStringList keys;
    for (const QKeySequence &key : action->shortcuts())
        if (!key.isEmpty())
            keys << key.toString(QKeySequence::NativeText);
    keys.removeDuplicates();
    return keys.join(QStringLiteral(", "));
}

void collectMenu(const QMenu *menu, const QString &group, QList<ShortcutEntry> *out, QSet<const QAction *> *seen)
{
    for (const QAction *action : menu->actions()) {
        if (action->isSeparator())
            continue;
        if (const QMenu *sub = action->menu()) {
            collectMenu(sub, group + QStringLiteral(" ▸ ") + plainText(sub->title()), out, seen);
            continue;
        }
        seen->insert(action);
        const QString keys = keysOf(action);
        if (!keys.isEmpty())
            out->append({group, actionName(action), keys});
    }
}

} // namespace

QList<ShortcutEntry> windowShortcuts(const QMainWindow *window)
{
    QList<ShortcutEntry> entries;
    QSet<const QAction *> seen;
    for (const QAction *top : window->menuBar()->actions())
        if (const QMenu *menu = top->menu())
            collectMenu(menu, plainText(menu->title()), &entries, &seen);
    // Shortcuts that work without a menu entry (the window's own actions).
    for (const QAction *action : window->actions())
        if (!seen.contains(action) && !keysOf(action).isEmpty())
            entries.append({QObject::tr("Window"), actionName(action), keysOf(action)});
    // The canvas's keys, handled by the scene rather than by actions.
    const QString canvas = QObject::tr("Canvas");
    entries.append({canvas, QObject::tr("Move the selected nodes by a grid step"), QObject::tr("Arrow keys")});
    entries.append({canvas, QObject::tr("Move the selected nodes by one pixel"), QObject::tr("Shift+Arrow keys")});
    entries.append({canvas, QObject::tr("Cancel the connection being dragged"), QObject::tr("Esc")});
    entries.append({canvas, QObject::tr("Zoom"), QObject::tr("Ctrl+wheel")});
    return entries;
}

QString shortcutsHtml(const QList<ShortcutEntry> &entries)
{
    QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\">");
    QString group;
    for (const ShortcutEntry &e : entries) {
        if (e.group != group) {
            group = e.group;
            html += QStringLiteral("<tr><td colspan=\"2\"><br><b>%1</b></td></tr>").arg(group.toHtmlEscaped());
        }
        html += QStringLiteral("<tr><td>%1</td><td>&nbsp;&nbsp;<code>%2</code></td></tr>").arg(e.action.toHtmlEscaped(), e.keys.toHtmlEscaped());
    }
    return html + QStringLiteral("</table>");
}

void showShortcutsDialog(QMainWindow *window)
{
    auto *dialog = new QDialog(window);
    dialog->setObjectName(QStringLiteral("shortcutsDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(QObject::tr("Keyboard shortcuts"));
    auto *text = new QTextBrowser(dialog);
    text->setHtml(shortcutsHtml(windowShortcuts(window)));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    auto *layout = new QVBoxLayout(dialog);
    layout->addWidget(text);
    layout->addWidget(buttons);
    dialog->resize(520, std::min(760, window->height()));
    dialog->show();
}

} // namespace ty
