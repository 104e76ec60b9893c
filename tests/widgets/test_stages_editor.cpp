// Training stages in the inspector: add, remove, reorder, name, epochs, optimizer reset, overrides as KEY=VALUE
// lines and frozen nodes as a checklist, each one undo step (typing in one field merges) that undo takes back
// exactly; the checklist shows what earlier stages froze; a node rename follows into the stages; the canvas puts
// a lock badge on the nodes frozen in the stage the inspector shows.

#include "test_suite.h"
#include "widget_test_support.h"

#include "canvas/node_item.h"
#include "canvas/pipeline_scene.h"
#include "document/pipeline_document.h"
#include "document/training_stage_edits.h"
#include "inspector/inspector_panel.h"
#include "inspector/param_editor.h"
#include "inspector/param_form.h"
#include "inspector/stages_editor.h"

#include <QComboBox>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QPlainTextEdit>
#include <QToolButton>
#include <QSpinBox>
#include <QStyleOptionGraphicsItem>
#include <QTest>
#include <QUndoStack>

using namespace ty;

class TestStagesEditor : public QObject {
    Q_OBJECT

    std::unique_ptr<tytest::Canvas> canvas;
    std::unique_ptr<InspectorPanel> panel;

    PipelineDocument *doc() const { return canvas->document.get(); }
    StagesEditor *editor() const { return panel->stagesEditor(); }
    QJsonArray stages() const { return stage_edits::stagesOf(doc()->preset().training); }
    QString json(const QJsonValue &value) const
    {
        return QString::fromUtf8(value.isArray() ? QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact)
                                                 : QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    }
    QStringList checkedNodes() const
    {
        QStringList checked;
        for (int i = 0; i < editor()->frozenList()->count(); ++i)
            if (editor()->frozenList()->item(i)->checkState() == Qt::Checked)
                checked << editor()->frozenList()->item(i)->data(Qt::UserRole).toString();
        return checked;
    }
    void check(const QString &node, bool on)
    {
        for (int i = 0; i < editor()->frozenList()->count(); ++i)
            if (editor()->frozenList()->item(i)->data(Qt::UserRole).toString() == node)
                editor()->frozenList()->item(i)->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
    QStringList lockedNodes() const
    {
        QStringList locked;
        for (const Node &node : doc()->graph().nodes)
            if (!canvas->scene->nodeItem(node.id)->frozenInStage().isEmpty())
                locked << node.id;
        return locked;
    }

private Q_SLOTS:
    void init()
    {
        canvas = std::make_unique<tytest::Canvas>();
        QVERIFY(doc()->load(tytest::presetPath(QStringLiteral("fashion-mnist-mlp"))).ok());
        panel = std::make_unique<InspectorPanel>(doc());
        panel->resize(380, 1400);
        panel->show();
    }

    void cleanup()
    {
        panel.reset();
        canvas.reset();
    }

    void addRemoveAndReorderAreUndoable()
    {
        const QJsonObject original = doc()->preset().training;
        QVERIFY(editor()->stageList()->isHidden());
        editor()->addButton()->click();
        // The first stage takes training.epochs, which goes.
        QCOMPARE(json(stages()), QStringLiteral(R"([{"epochs":15,"name":"stage 1"}])"));
        QVERIFY(!doc()->preset().training.contains(QStringLiteral("epochs")));
        QCOMPARE(doc()->shownStage(), 0);
        QVERIFY(!editor()->stageList()->isHidden());
        editor()->addButton()->click();
        QCOMPARE(json(stages()), QStringLiteral(R"([{"epochs":15,"name":"stage 1"},{"epochs":1,"name":"stage 2"}])"));
        QCOMPARE(doc()->shownStage(), 1);
        QCOMPARE(editor()->stageList()->count(), 2);
        QCOMPARE(editor()->stageList()->currentRow(), 1);
        QCOMPARE(editor()->stageList()->item(1)->text(), QStringLiteral("2.  stage 2  ·  1 epoch"));
        editor()->upButton()->click();
        QCOMPARE(json(stages()), QStringLiteral(R"([{"epochs":1,"name":"stage 2"},{"epochs":15,"name":"stage 1"}])"));
        QCOMPARE(doc()->shownStage(), 0);
        QVERIFY(!editor()->upButton()->isEnabled());
        QCOMPARE(doc()->undoStack()->undoText(), QStringLiteral("Move training stage 2 up"));
        editor()->removeButton()->click();
        editor()->removeButton()->click();
        // The last one gone, its epochs are training.epochs again.
        QVERIFY(!doc()->preset().training.contains(QStringLiteral("stages")));
        QCOMPARE(doc()->preset().training.value(QStringLiteral("epochs")).toInt(), 15);
        QCOMPARE(doc()->shownStage(), -1);
        QVERIFY(editor()->stageList()->isHidden());

        QCOMPARE(doc()->undoStack()->count(), 5);
        doc()->undoStack()->undo();
        doc()->undoStack()->undo();
        QCOMPARE(json(stages()), QStringLiteral(R"([{"epochs":1,"name":"stage 2"},{"epochs":15,"name":"stage 1"}])"));
        QCOMPARE(editor()->stageList()->count(), 2);
        while (doc()->undoStack()->canUndo())
            doc()->undoStack()->undo();
        QCOMPARE(doc()->preset().training, original);
        QCOMPARE(doc()->shownStage(), -1);
        while (doc()->undoStack()->canRedo())
            doc()->undoStack()->redo();
        QCOMPARE(doc()->preset().training.value(QStringLiteral("epochs")).toInt(), 15);
    }

    void fieldsEditTheSelectedStage()
    {
        editor()->addStage();
        editor()->addStage();
        editor()->selectStage(0);
        const int before = doc()->undoStack()->count();
        // Typing a name is one undo step.
        editor()->nameEdit()->setFocus();
        QTest::keyClick(editor()->nameEdit(), Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(editor()->nameEdit(), QStringLiteral("head"));
        QTest::keyClick(editor()->nameEdit(), Qt::Key_Return);
        QCOMPARE(stages()[0].toObject().value(QStringLiteral("name")).toString(), QStringLiteral("head"));
        QCOMPARE(doc()->undoStack()->count(), before + 1);
        QCOMPARE(doc()->undoStack()->undoText(), QStringLiteral("Rename training stage 1"));
        editor()->epochsEdit()->setValue(2);
        QCOMPARE(stages()[0].toObject().value(QStringLiteral("epochs")).toInt(), 2);
        editor()->setResetOptimizer(2);
        QCOMPARE(stages()[0].toObject().value(QStringLiteral("reset_optimizer")), QJsonValue(false));
        editor()->setResetOptimizer(0);
        QVERIFY(!stages()[0].toObject().contains(QStringLiteral("reset_optimizer")));

        // Overrides as KEY=VALUE lines, typed as their parameters are.
        editor()->selectStage(1);
        QVERIFY(editor()->setOverridesText(QStringLiteral("opt.lr = 1e-4\n\ntraining.batch_size=64\nschedule.nothing=x")));
        QCOMPARE(stages()[1].toObject().value(QStringLiteral("set")).toObject(),
                 QJsonDocument::fromJson(R"({"opt.lr":0.0001,"schedule.nothing":"x","training.batch_size":64})").object());
        QCOMPARE(editor()->overridesEdit()->toPlainText(), QStringLiteral("opt.lr=0.0001\nschedule.nothing=x\ntraining.batch_size=64"));
        // A key naming nothing is validation's to report, pinned to the stage.
        doc()->validateNow();
        QVERIFY2(editor()->problemsLabel()->text().contains(QStringLiteral("set.schedule.nothing")),
                 qPrintable(editor()->problemsLabel()->text()));
        QVERIFY(!editor()->problemsLabel()->isHidden());
        // Clicking the issue in the Issues list (focusParam) shows its stage.
        editor()->selectStage(0);
        panel->focusParam(QStringLiteral("training.stages[1].set.schedule.nothing"));
        QCOMPARE(doc()->shownStage(), 1);
        // A malformed line changes nothing.
        const QJsonObject training = doc()->preset().training;
        QVERIFY(!editor()->setOverridesText(QStringLiteral("opt.lr=1e-3\noops")));
        QCOMPARE(doc()->preset().training, training);
        QVERIFY(editor()->setOverridesText(QStringLiteral("opt.lr=1e-4")));
        doc()->validateNow();
        QVERIFY(editor()->problemsLabel()->isHidden());
        QVERIFY(editor()->setOverridesText(QString()));
        QVERIFY(!stages()[1].toObject().contains(QStringLiteral("set")));
        // The inspector's training form: epochs belong to the stages now.
        QVERIFY(!panel->trainingForm()->editor(QStringLiteral("epochs"))->isEnabled());
        // It fits the inspector's side panel as the training form does.
        QVERIFY2(editor()->minimumSizeHint().width() <= panel->trainingForm()->minimumSizeHint().width() + 20,
                 qPrintable(QStringLiteral("%1 > %2").arg(editor()->minimumSizeHint().width()).arg(panel->trainingForm()->minimumSizeHint().width())));
    }

    void frozenNodesAreInheritedAndLocked()
    {
        editor()->addStage();
        editor()->addStage();
        editor()->selectStage(0);
        QCOMPARE(editor()->frozenList()->count(), 9);  // norm, flatten, fc1..fc4, relu1..relu3: the network nodes
        check(QStringLiteral("fc1"), true);
        check(QStringLiteral("fc2"), true);
        QCOMPARE(json(stages()[0].toObject().value(QStringLiteral("freeze"))), QStringLiteral(R"(["fc1","fc2"])"));
        QCOMPARE(doc()->undoStack()->undoText(), QStringLiteral("Set the frozen nodes of training stage 1"));
        QCOMPARE(lockedNodes(), (QStringList{QStringLiteral("fc1"), QStringLiteral("fc2")}));
        QCOMPARE(canvas->scene->nodeItem(QStringLiteral("fc1"))->frozenInStage(), QStringLiteral("stage 1"));
        QVERIFY(canvas->scene->nodeItem(QStringLiteral("fc1"))->toolTip().contains(QStringLiteral("Frozen in stage “stage 1”")));

        // Stage 2 inherits them; unchecking fc2 there unfreezes it in that stage only.
        editor()->selectStage(1);
        QCOMPARE(checkedNodes(), (QStringList{QStringLiteral("fc1"), QStringLiteral("fc2")}));
        QCOMPARE(lockedNodes(), (QStringList{QStringLiteral("fc1"), QStringLiteral("fc2")}));
        check(QStringLiteral("fc2"), false);
        QCOMPARE(json(stages()[1].toObject()), QStringLiteral(R"({"epochs":1,"name":"stage 2","unfreeze":["fc2"]})"));
        QCOMPARE(lockedNodes(), QStringList{QStringLiteral("fc1")});
        QCOMPARE(canvas->scene->nodeItem(QStringLiteral("fc1"))->frozenInStage(), QStringLiteral("stage 2"));
        editor()->selectStage(0);
        QCOMPARE(lockedNodes(), (QStringList{QStringLiteral("fc1"), QStringLiteral("fc2")}));
        doc()->validateNow();
        QVERIFY2(editor()->countsLabel()->text().contains(QStringLiteral("frozen parameters")), qPrintable(editor()->countsLabel()->text()));
        QVERIFY(editor()->countsLabel()->text().contains(QStringLiteral("233,856 frozen")));  // fc1 200,960 + fc2 32,896

        // A rename follows into the stages, and back with undo.
        QVERIFY(doc()->renameNode(QStringLiteral("fc1"), QStringLiteral("features")).isEmpty());
        QCOMPARE(json(stages()[0].toObject().value(QStringLiteral("freeze"))), QStringLiteral(R"(["features","fc2"])"));
        QCOMPARE(lockedNodes(), (QStringList{QStringLiteral("features"), QStringLiteral("fc2")}));
        doc()->undoStack()->undo();
        QCOMPARE(json(stages()[0].toObject().value(QStringLiteral("freeze"))), QStringLiteral(R"(["fc1","fc2"])"));

        // Undo takes the freezing back, a click at a time; without stages nothing is locked.
        doc()->undoStack()->undo();
        QCOMPARE(lockedNodes(), (QStringList{QStringLiteral("fc1"), QStringLiteral("fc2")}));
        doc()->undoStack()->undo();
        QCOMPARE(lockedNodes(), QStringList{QStringLiteral("fc1")});
        doc()->undoStack()->undo();
        QVERIFY2(lockedNodes().isEmpty(), qPrintable(lockedNodes().join(QLatin1Char(',')) + json(stages())));
        while (doc()->undoStack()->canUndo())
            doc()->undoStack()->undo();
        QCOMPARE(doc()->shownStage(), -1);
        QVERIFY(lockedNodes().isEmpty());
    }

    void lockBadgeIsDrawn()
    {
        // The badge is drawn in the header: a white disc where an unfrozen node has its header colour.
        editor()->addStage();
        check(QStringLiteral("fc3"), true);
        NodeItem *item = canvas->scene->nodeItem(QStringLiteral("fc3"));
        auto render = [item] {
            QImage image(item->boundingRect().size().toSize() + QSize(4, 4), QImage::Format_ARGB32);
            image.fill(Qt::transparent);
            QPainter painter(&image);
            painter.translate(-item->boundingRect().topLeft() + QPointF(2, 2));
            QStyleOptionGraphicsItem option;
            item->paint(&painter, &option, nullptr);
            return image;
        };
        const QImage locked = render();
        item->setFrozenInStage(QString());
        const QImage unlocked = render();
        const int y = int(-item->boundingRect().top()) + 2 + 12;  // the header's middle
        int white = 0, whiteBefore = 0;
        for (int x = 0; x < locked.width(); ++x) {
            white += locked.pixelColor(x, y) == QColor(Qt::white);
            whiteBefore += unlocked.pixelColor(x, y) == QColor(Qt::white);
        }
        QVERIFY2(white >= whiteBefore + 4, qPrintable(QStringLiteral("%1 vs %2 white pixels").arg(white).arg(whiteBefore)));
    }
};

TY_TEST_CLASS(TestStagesEditor)

#include "test_stages_editor.moc"
