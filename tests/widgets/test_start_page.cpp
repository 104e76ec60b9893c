// The start page: it lists every bundled preset with its name and description (read here through the real
// preset loader), and choosing one opens it and puts the start page away; New does the same with an empty
// canvas, whose Issues list then hints what to add instead of listing the empty pipeline's errors.

#include "test_suite.h"
#include "widget_test_support.h"

#include "default_preset.h"
#include "main_window.h"
#include "start_page.h"

#include "document/pipeline_document.h"
#include "issues/issues_panel.h"

#include "preset_format.h"

#include <QFileInfo>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QTest>
#include <QTreeWidget>

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

    // The model library's presets (presets/models/) in their own column, apart from the presets, and in File ▸ Open
    // Bundled Preset ▸ Models; choosing one opens it with its network as one composite node.
    void modelsColumnOpensTheModelLibrary()
    {
        MainWindow window;
        window.setInteractive(false);
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        StartPage *page = window.showStartPage();
        QListWidget *models = page->modelList();
        QStringList names;
        for (int i = 0; i < models->count(); ++i)
            names << models->item(i)->text().section(QLatin1Char('\n'), 0, 0);
        QCOMPARE(names, (QStringList{QStringLiteral("MobileNetV2"), QStringLiteral("ResNet-18"), QStringLiteral("ResNet-34"),
                                     QStringLiteral("VGG-11 with batch norm")}));
        for (int i = 0; i < page->presetList()->count(); ++i)
            QVERIFY(!page->presetList()->item(i)->toolTip().contains(QStringLiteral("/models/")));
        const auto *menu = window.findChild<QMenu *>(QStringLiteral("modelLibraryMenu"));
        QVERIFY(menu);
        QCOMPARE(menu->actions().size(), 4);
        QListWidgetItem *resnet = models->item(1);
        models->scrollToItem(resnet);
        QTest::mouseClick(models->viewport(), Qt::LeftButton, Qt::NoModifier, models->visualItemRect(resnet).center());
        QCOMPARE(QFileInfo(window.document()->fileName()).fileName(), QStringLiteral("resnet18.trainyard.json"));
        QVERIFY(!window.startPage());
        const Node *network = window.document()->graph().node(QStringLiteral("resnet18"));
        QVERIFY(network);
        QCOMPARE(network->block, QStringLiteral("resnet18"));
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
        // The Issues list says what to add, not the empty pipeline's "no dataset, no loss, no optimizer" errors.
        QTRY_COMPARE(window.issues()->summary(), QStringLiteral("Empty pipeline"));
        QCOMPARE(window.issues()->issueCount(), 0);
        const auto *list = window.issues()->findChild<QTreeWidget *>();
        QVERIFY(list);
        QCOMPARE(list->topLevelItemCount(), 1);
        QVERIFY(list->topLevelItem(0)->text(2).contains(QStringLiteral("empty pipeline")));
        // The first node brings the real issues back.
        window.document()->addNode(QStringLiteral("dataset.synthetic"), QPointF(0, 0));
        QTRY_VERIFY(window.issues()->issueCount() > 0);
        QVERIFY(window.issues()->summary().contains(QStringLiteral("error")));
    }
};

TY_TEST_CLASS(TestStartPage)

#include "test_start_page.moc"
