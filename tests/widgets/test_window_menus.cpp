// Menu entries of the main window (issue 43): File ▸ Start Page over an open pipeline and back, File ▸ Open Bundled
// Preset; Help ▸ Keyboard Shortcuts listing the real shortcuts of the window's actions; View ▸ Theme (System, Light,
// Dark) applied at once to every widget, the confusion matrix included, and kept in the settings.

#include "test_suite.h"
#include "widget_test_support.h"

#include "app_theme.h"
#include "main_window.h"
#include "shortcuts_help.h"
#include "start_page.h"

#include "common/canvas_style.h"
#include "confusion_matrix_view.h"
#include "document/pipeline_document.h"
#include "evaluation_view.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QFileInfo>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QTest>
#include <QTextBrowser>
#include <QUndoStack>

using namespace ty;

namespace {

QAction *menuAction(const QMainWindow &window, const QString &menuName, const QString &text)
{
    const auto *menu = window.findChild<QMenu *>(menuName);
    if (!menu)
        return nullptr;
    for (QAction *a : menu->actions())
        if (a->text() == text || a->objectName() == text)
            return a;
    return nullptr;
}

} // namespace

class TestWindowMenus : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void theStartPageComesBackOverAPipelineAndGoesBackToIt()
    {
        MainWindow window;
        window.setInteractive(false);
        window.resize(1280, 720);
        window.show();
        QVERIFY(window.openFile(tytest::presetPath(QStringLiteral("fashion-mnist-mlp"))));
        const QString file = window.document()->fileName();
        QVERIFY(!window.startPage());
        window.action(QStringLiteral("start-page"))->trigger();
        StartPage *page = window.startPage();
        QVERIFY(page && page->isVisible());
        QVERIFY(page->backAvailable());
        QCOMPARE(page->presetList()->count(), tytest::bundledPresetFiles().size());
        // Back to the pipeline, unchanged; Esc does the same.
        QPushButton *back = nullptr;
        for (QPushButton *button : page->findChildren<QPushButton *>())
            if (button->text() == QStringLiteral("Back to the Pipeline"))
                back = button;
        QVERIFY(back && back->isVisible());
        back->click();
        QVERIFY(!window.startPage());
        QCOMPARE(window.document()->fileName(), file);
        QVERIFY(!window.document()->isModified());
        window.action(QStringLiteral("start-page"))->trigger();
        QTest::keyClick(window.startPage(), Qt::Key_Escape);
        QVERIFY(!window.startPage());
        // A bundled preset from the start page shown again.
        page = window.showStartPage();
        const QString wine = QFileInfo(tytest::presetPath(QStringLiteral("wine-tabular"))).canonicalFilePath();
        for (int i = 0; i < page->presetList()->count(); ++i)
            if (QFileInfo(page->presetList()->item(i)->toolTip()).canonicalFilePath() == wine)
                Q_EMIT page->presetList()->itemClicked(page->presetList()->item(i));
        QCOMPARE(QFileInfo(window.document()->fileName()).canonicalFilePath(), wine);
        QVERIFY(!window.startPage());
        // With nothing under it (New), the page has no way back but New, Open and the presets.
        window.newDocument();
        QVERIFY(!window.showStartPage()->backAvailable());
    }

    void fileOpenBundledPresetListsEveryPreset()
    {
        MainWindow window;
        window.setInteractive(false);
        const auto *menu = window.findChild<QMenu *>(QStringLiteral("bundledPresetsMenu"));
        QVERIFY(menu);
        // Every preset, then the model library's submenu.
        QCOMPARE(menu->actions().size(), tytest::bundledPresetFiles().size() + 1);
        QVERIFY(menu->actions().last()->menu());
        QCOMPARE(menu->actions().last()->menu()->objectName(), QStringLiteral("modelLibraryMenu"));
        const QList<PresetSummary> presets = presetSummaries(tytest::presetsDir());
        QAction *resnet = nullptr;
        for (const PresetSummary &p : presets)
            if (p.path.endsWith(QStringLiteral("fashion-mnist-resnet.trainyard.json")))
                resnet = menuAction(window, QStringLiteral("bundledPresetsMenu"), p.name);
        QVERIFY(resnet);
        QVERIFY(!resnet->toolTip().isEmpty());
        resnet->trigger();
        QVERIFY(window.document()->fileName().endsWith(QStringLiteral("fashion-mnist-resnet.trainyard.json")));
    }

    void keyboardShortcutsListTheActionsShortcuts()
    {
        MainWindow window;
        window.setInteractive(false);
        const QList<ShortcutEntry> entries = windowShortcuts(&window);
        auto keysFor = [&entries](const QString &action) {
            for (const ShortcutEntry &e : entries)
                if (e.action == action)
                    return e.keys;
            return QString();
        };
        QCOMPARE(keysFor(QStringLiteral("Train")), QKeySequence(Qt::Key_F5).toString(QKeySequence::NativeText));
        QCOMPARE(keysFor(QStringLiteral("Group into Block")), QStringLiteral("Ctrl+G"));
        QCOMPARE(keysFor(QStringLiteral("Open")), QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText));
        QVERIFY(keysFor(QStringLiteral("Fit to Window")).contains(QStringLiteral("Home")));
        QVERIFY(!keysFor(QStringLiteral("Keyboard Shortcuts")).isEmpty());
        // Undo and Redo by what they are, not by the edit they would undo now.
        window.document()->addNode(QStringLiteral("layer.relu"), QPointF(0, 0));
        QVERIFY(keysFor(QStringLiteral("Undo")).contains(QKeySequence(QKeySequence::Undo).toString(QKeySequence::NativeText)));
        QVERIFY(!keysFor(QStringLiteral("Redo")).isEmpty());
        for (const ShortcutEntry &e : windowShortcuts(&window))
            QVERIFY2(!e.action.startsWith(QStringLiteral("Undo ")), qPrintable(e.action));
        // Every shortcut of every action of the window is listed, by what the action says it is.
        QStringList missing;
        for (const QAction *action : window.findChildren<QAction *>())
            for (const QKeySequence &key : action->shortcuts()) {
                const QString text = key.toString(QKeySequence::NativeText);
                if (text.isEmpty())
                    continue;  // a standard key this platform has none for (Save As, Quit without a desktop)
                bool found = false;
                for (const ShortcutEntry &e : entries)
                    found = found || e.keys.split(QStringLiteral(", ")).contains(text);
                if (!found && action->isVisible() && !action->text().isEmpty())
                    missing << action->text() + QLatin1Char(' ') + text;
            }
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QStringLiteral("; "))));
        // Grouped by menu, in the dialog Help ▸ Keyboard Shortcuts opens.
        QVERIFY(shortcutsHtml(entries).contains(QStringLiteral("<b>Edit</b>")));
        window.action(QStringLiteral("shortcuts"))->trigger();
        auto *dialog = window.findChild<QDialog *>(QStringLiteral("shortcutsDialog"));
        QVERIFY(dialog && dialog->isVisible());
        QVERIFY(dialog->findChild<QTextBrowser *>()->toPlainText().contains(QStringLiteral("Group into Block")));
        dialog->close();
    }

    void theThemeMenuSwitchesAndKeepsTheScheme()
    {
        const QPalette system = QApplication::palette();
        MainWindow window;
        window.setInteractive(false);
        window.show();
        QAction *dark = menuAction(window, QStringLiteral("themeMenu"), QStringLiteral("theme-dark"));
        QAction *light = menuAction(window, QStringLiteral("themeMenu"), QStringLiteral("theme-light"));
        QAction *systemTheme = menuAction(window, QStringLiteral("themeMenu"), QStringLiteral("theme-system"));
        QVERIFY(dark && light && systemTheme);
        QVERIFY(systemTheme->isChecked());
        dark->trigger();
        QCOMPARE(currentTheme(), AppTheme::Dark);
        QCOMPARE(savedTheme(), AppTheme::Dark);
        QCOMPARE(QSettings().value(QStringLiteral("appearance/theme")).toString(), QStringLiteral("dark"));
        QVERIFY(style::isDark(QApplication::palette()));
        // Every widget follows at once, the confusion matrix's empty cells included.
        ConfusionMatrixView *matrix = window.evaluation()->confusion();
        QTRY_VERIFY(style::isDark(matrix->palette()));  // the change reaches each widget through the event loop
        matrix->setMatrix({QStringLiteral("a"), QStringLiteral("b")}, {3, 0, 0, 3});
        QVERIFY(matrix->cellColor(0, 1).lightnessF() < 0.3);
        light->trigger();
        QVERIFY(!style::isDark(QApplication::palette()));
        QTRY_VERIFY(matrix->cellColor(0, 1).lightnessF() > 0.9);
        QCOMPARE(savedTheme(), AppTheme::Light);
        systemTheme->trigger();
        QCOMPARE(QApplication::palette().color(QPalette::Base), system.color(QPalette::Base));
        QCOMPARE(savedTheme(), AppTheme::System);
        QCOMPARE(themeFromName(QStringLiteral("dark")), AppTheme::Dark);
        bool ok = true;
        QCOMPARE(themeFromName(QStringLiteral("purple"), &ok), AppTheme::System);
        QVERIFY(!ok);
    }
};

TY_TEST_CLASS(TestWindowMenus)

#include "test_window_menus.moc"
