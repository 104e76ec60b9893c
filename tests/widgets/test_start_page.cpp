// The start page: it lists every bundled preset with its name and description (read here through the real
// preset loader), and choosing one opens it and puts the start page away; New does the same with an empty
// canvas.

#include "test_suite.h"
#include "widget_test_support.h"

#include "default_preset.h"
#include "main_window.h"
#include "start_page.h"

#include "document/pipeline_document.h"

#include "preset_format.h"

#include <QFileInfo>
#include <QListWidget>
#include <QPushButton>
#include <QTest>

using namespace ty;

class TestStartPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void listsTheBundledPresetsWithTheirDescriptions()
    {
        MainWindow window;
        window.setInteractive(false);
        window.show();
        StartPage *page = window.showStartPage();
        QVERIFY(page->isVisible());
        QListWidget *list = page->presetList();
        const QStringList files = tytest::bundledPresetFiles();
        QCOMPARE(QFileInfo(bundledPresetsDir()).canonicalFilePath(), QFileInfo(tytest::presetsDir()).canonicalFilePath());
        QCOMPARE(list->count(), files.size());
        for (const QString &file : files) {
            const Result<Preset> preset = loadPreset(file);
            QVERIFY(preset.ok());
            QVERIFY2(!preset.value().description.isEmpty(), qPrintable(file));
            bool found = false;
            for (int i = 0; i < list->count(); ++i)
                found = found || (list->item(i)->text().contains(preset.value().name)
                                  && list->item(i)->text().contains(preset.value().description));
            QVERIFY2(found, qPrintable(file));
        }
    }

    void choosingAPresetOpensIt()
    {
        MainWindow window;
        window.setInteractive(false);
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QListWidget *list = window.showStartPage()->presetList();
        const QString wanted = QFileInfo(tytest::presetPath(QStringLiteral("wine-tabular"))).canonicalFilePath();
        QListWidgetItem *item = nullptr;
        for (int i = 0; i < list->count(); ++i)
            if (QFileInfo(list->item(i)->toolTip()).canonicalFilePath() == wanted)
                item = list->item(i);
        QVERIFY(item);
        list->scrollToItem(item);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, Qt::NoModifier, list->visualItemRect(item).center());
        QCOMPARE(QFileInfo(window.document()->fileName()).canonicalFilePath(), wanted);
        QVERIFY(!window.startPage());
        QVERIFY(!window.document()->graph().nodes.isEmpty());
    }

    void newStartsAnEmptyCanvas()
    {
        MainWindow window;
        window.setInteractive(false);
        window.show();
        StartPage *page = window.showStartPage();
        QPushButton *newButton = nullptr;
        for (QPushButton *button : page->findChildren<QPushButton *>())
            if (button->text() == QStringLiteral("New"))
                newButton = button;
        QVERIFY(newButton);
        newButton->click();
        QVERIFY(!window.startPage());
        QVERIFY(window.document()->graph().nodes.isEmpty());
    }
};

TY_TEST_CLASS(TestStartPage)

#include "test_start_page.moc"
