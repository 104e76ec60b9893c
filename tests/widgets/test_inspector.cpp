// The inspector: editors generated from parameter specs; each edit is one undo step, typing in one field
// merges; reset to default; invalid text is refused; the node id and the training settings are editable;
// undo and redo show up in the editors.

#include "test_suite.h"
#include "widget_test_support.h"

#include "document/pipeline_document.h"
#include "inspector/inspector_panel.h"
#include "inspector/param_editor.h"
#include "inspector/param_form.h"
#include "common/collapsible_section.h"

#include "preset_format.h"
#include "training_settings.h"


#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTest>
#include <QScrollArea>
#include <QToolButton>
#include <QUndoStack>
#include <QApplication>
#include <QScrollBar>
#include <QSettings>
#include <QWheelEvent>

using namespace ty;

class TestInspector : public QObject {
    Q_OBJECT

    std::unique_ptr<PipelineDocument> doc;
    std::unique_ptr<InspectorPanel> panel;

    template <typename T>
    T *input(const QString &param) const
    {
        ParamForm *form = panel->nodeForm();
        return form && form->editor(param) ? qobject_cast<T *>(form->editor(param)->input()) : nullptr;
    }
    QJsonValue param(const QString &node, const QString &name) const
    {
        return doc->graph().node(node)->params.value(name);
    }
    void typeInto(QWidget *widget, const QString &text)
    {
        QTest::keyClick(widget, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(widget, text);
        QTest::keyClick(widget, Qt::Key_Return);
    }

private Q_SLOTS:
    void init()
    {
        QSettings().remove(QStringLiteral("inspector/open"));  // every test starts with the sections as shipped
        doc = std::make_unique<PipelineDocument>();
        QVERIFY(doc->load(tytest::presetPath(QStringLiteral("fashion-mnist-resnet"))).ok());
        panel = std::make_unique<InspectorPanel>(doc.get());
        panel->resize(340, 800);
        panel->show();
    }

    void cleanup()
    {
        panel.reset();
        doc.reset();
    }

    // At the width the inspector has in a 1280 x 720 window, every page fits: no content wider than the
    // scroll area showing it (which has no horizontal scroll bar), for a node with a long output line.
    void pagesFitANarrowInspector()
    {
        panel->resize(290, 700);
        for (const QStringList &selection : {QStringList{QStringLiteral("stage1")}, QStringList{QStringLiteral("data")},
                                             QStringList{}}) {
            doc->setSelectedNodes(selection);
            doc->validateNow();
            QCoreApplication::processEvents();
            int checked = 0;
            for (const QScrollArea *area : panel->findChildren<QScrollArea *>()) {
                if (!area->isVisible() || !area->widget())
                    continue;
                ++checked;
                QVERIFY2(area->widget()->width() <= area->viewport()->width(),
                         qPrintable(QStringLiteral("%1: content %2 wide in %3")
                                        .arg(selection.value(0, QStringLiteral("training")))
                                        .arg(area->widget()->width())
                                        .arg(area->viewport()->width())));
            }
            QVERIFY(checked > 0);
        }
    }

    void editorsFollowTheSpecs()
    {
        doc->setSelectedNodes({QStringLiteral("opt")});
        QCOMPARE(panel->shownNode(), QStringLiteral("opt"));
        QVERIFY(input<QLineEdit>(QStringLiteral("lr")));           // float: typed as text (1e-4)
        QVERIFY(input<QCheckBox>(QStringLiteral("nesterov")));     // bool
        doc->setSelectedNodes({QStringLiteral("stem")});           // a composite: its exposed parameters
        QVERIFY(input<QSpinBox>(QStringLiteral("width")));  // int
        QCOMPARE(input<QSpinBox>(QStringLiteral("width"))->minimum(), 1);
        QCOMPARE(input<QSpinBox>(QStringLiteral("width"))->value(), 32);
        doc->setSelectedNodes({QStringLiteral("norm")});
        QCOMPARE(input<QLineEdit>(QStringLiteral("mean"))->text(), QStringLiteral("0.286"));  // float list
        doc->setSelectedNodes({QStringLiteral("data")});
        QVERIFY(panel->nodeForm()->editor(QStringLiteral("dir"))->input()->findChild<QToolButton *>());  // path + "…"
        // Defaults: placeholder for text fields; the reset button only for explicit values.
        QLineEdit *fraction = input<QLineEdit>(QStringLiteral("val_fraction"));
        QVERIFY(fraction->text().isEmpty());
        QCOMPARE(fraction->placeholderText(), QStringLiteral("0.1"));
        QVERIFY(!panel->nodeForm()->editor(QStringLiteral("val_fraction"))->resetButton()->isEnabled());
        QVERIFY(panel->nodeForm()->editor(QStringLiteral("val_count"))->resetButton()->isEnabled());
        doc->setSelectedNodes({QStringLiteral("schedule")});
        QVERIFY(input<QLineEdit>(QStringLiteral("warmup_fraction")));
        doc->setSelectedNodes({});
        QVERIFY(qobject_cast<QComboBox *>(panel->trainingForm()->editor(QStringLiteral("device"))->input()));
    }

    void typingInOneFieldIsOneUndoStep()
    {
        doc->setSelectedNodes({QStringLiteral("stem")});
        QSpinBox *spin = input<QSpinBox>(QStringLiteral("width"));
        typeInto(spin, QStringLiteral("256"));
        QCOMPARE(param(QStringLiteral("stem"), QStringLiteral("width")).toInt(), 256);
        QCOMPARE(doc->undoStack()->count(), 1);
        // The next edit of the same field, after editing finished, is a new step.
        typeInto(spin, QStringLiteral("48"));
        QCOMPARE(doc->undoStack()->count(), 2);
        doc->undoStack()->undo();
        QCOMPARE(spin->value(), 256);
        doc->undoStack()->undo();
        QCOMPARE(spin->value(), 32);
        QCOMPARE(param(QStringLiteral("stem"), QStringLiteral("width")).toInt(), 32);
    }

    void floatsReadAsTypedAndInvalidTextIsRefused()
    {
        doc->setSelectedNodes({QStringLiteral("opt")});
        QLineEdit *lr = input<QLineEdit>(QStringLiteral("lr"));
        typeInto(lr, QStringLiteral("1e-4"));
        QCOMPARE(param(QStringLiteral("opt"), QStringLiteral("lr")).toDouble(), 1e-4);
        QCOMPARE(doc->undoStack()->count(), 1);
        const int steps = doc->undoStack()->count();
        QTest::keyClick(lr, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(lr, QStringLiteral("fast"));
        QCOMPARE(doc->undoStack()->count(), steps);
        QVERIFY(!panel->nodeForm()->editor(QStringLiteral("lr"))->problem().isEmpty());
        QTest::keyClick(lr, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(lr, QStringLiteral("-1"));  // out of range: at least 0
        QVERIFY(panel->nodeForm()->editor(QStringLiteral("lr"))->problem().contains(QStringLiteral("at least")));
        QCOMPARE(param(QStringLiteral("opt"), QStringLiteral("lr")).toDouble(), 1e-4);
        QCOMPARE(doc->undoStack()->count(), steps);
    }

    void checkBoxesAndChoicesAreOneStepEach()
    {
        doc->setSelectedNodes({QStringLiteral("opt")});
        QCheckBox *nesterov = input<QCheckBox>(QStringLiteral("nesterov"));
        QVERIFY(nesterov->isChecked());
        nesterov->click();
        QCOMPARE(param(QStringLiteral("opt"), QStringLiteral("nesterov")).toBool(), false);
        nesterov->click();
        QCOMPARE(doc->undoStack()->count(), 2);
        doc->setSelectedNodes({});
        auto *device = qobject_cast<QComboBox *>(panel->trainingForm()->editor(QStringLiteral("device"))->input());
        device->setFocus();
        QTest::keyClick(device, Qt::Key_Down);  // auto -> cpu
        QCOMPARE(doc->preset().training.value(QStringLiteral("device")).toString(), QStringLiteral("cpu"));
        QCOMPARE(doc->undoStack()->count(), 3);
        // While the engine's devices are unknown "cuda" can be picked; once the training engine is known to have
        // no CUDA device (DeviceProbe), it is listed but greyed out and cannot be picked.
        auto *items = qobject_cast<QStandardItemModel *>(device->model());
        QVERIFY(items);
        QVERIFY(items->item(device->findText(QStringLiteral("cuda")))->isEnabled());
        doc->setCudaAvailable(false);
        QVERIFY(!items->item(device->findText(QStringLiteral("cuda")))->isEnabled());
        QTest::keyClick(device, Qt::Key_Down);
        QCOMPARE(doc->preset().training.value(QStringLiteral("device")).toString(), QStringLiteral("cpu"));
    }

    void resetToDefault()
    {
        doc->setSelectedNodes({QStringLiteral("stem")});
        ParamEditor *width = panel->nodeForm()->editor(QStringLiteral("width"));
        QVERIFY(width->resetButton()->isEnabled());
        width->resetButton()->click();
        QVERIFY(!doc->graph().node(QStringLiteral("stem"))->params.contains(QStringLiteral("width")));
        QCOMPARE(qobject_cast<QSpinBox *>(width->input())->value(), 16);  // the composite's default
        QVERIFY(!width->resetButton()->isEnabled());
        doc->undoStack()->undo();
        QCOMPARE(qobject_cast<QSpinBox *>(width->input())->value(), 32);
        QVERIFY(width->resetButton()->isEnabled());
        // Clearing a text field resets it too.
        doc->setSelectedNodes({QStringLiteral("loss")});
        QLineEdit *smoothing = input<QLineEdit>(QStringLiteral("label_smoothing"));
        QTest::keyClick(smoothing, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClick(smoothing, Qt::Key_Delete);
        QVERIFY(!doc->graph().node(QStringLiteral("loss"))->params.contains(QStringLiteral("label_smoothing")));
    }

    void undoRestoresTheValueAndTheSelection()
    {
        doc->setSelectedNodes({QStringLiteral("fc")});
        typeInto(input<QSpinBox>(QStringLiteral("out_features")), QStringLiteral("20"));
        doc->setSelectedNodes({QStringLiteral("data")});
        QCOMPARE(panel->shownNode(), QStringLiteral("data"));
        doc->undoStack()->undo();
        QCOMPARE(doc->selectedNodes(), QStringList{QStringLiteral("fc")});
        QCOMPARE(panel->shownNode(), QStringLiteral("fc"));
        QCOMPARE(input<QSpinBox>(QStringLiteral("out_features"))->value(), 10);
        doc->undoStack()->redo();
        QCOMPARE(input<QSpinBox>(QStringLiteral("out_features"))->value(), 20);
    }

    void theNodeIdIsEditableAndChecked()
    {
        doc->setSelectedNodes({QStringLiteral("fc")});
        QLineEdit *id = panel->idEditor();
        QCOMPARE(id->text(), QStringLiteral("fc"));
        QTest::keyClick(id, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(id, QStringLiteral("gap"));  // taken
        QVERIFY(panel->idProblem().contains(QStringLiteral("already")));
        QTest::keyClick(id, Qt::Key_Return);
        QVERIFY(doc->graph().node(QStringLiteral("fc")));
        QTest::keyClick(id, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(id, QStringLiteral("9classifier"));  // the validator keeps the leading digit out
        QCOMPARE(id->text(), QStringLiteral("classifier"));
        QTest::keyClick(id, Qt::Key_Return);
        QVERIFY(doc->graph().node(QStringLiteral("classifier")));
        QVERIFY(doc->graph().edges.contains(tytest::edge(QStringLiteral("classifier.out"), QStringLiteral("loss.input"))));
        QCOMPARE(panel->shownNode(), QStringLiteral("classifier"));
        QCOMPARE(doc->undoStack()->count(), 1);
        doc->undoStack()->undo();
        QCOMPARE(panel->idEditor()->text(), QStringLiteral("fc"));
    }

    // Scrolling the inspector over a field changes nothing (issue 43): the wheel goes to the scroll area until
    // the field is clicked; then it steps the value.
    void theWheelEditsOnlyAFocusedField()
    {
        doc->setSelectedNodes({});
        auto *epochs = qobject_cast<QSpinBox *>(panel->trainingForm()->editor(QStringLiteral("epochs"))->input());
        QVERIFY(epochs);
        auto *area = [&]() -> QScrollArea * {
            for (QWidget *w = epochs->parentWidget(); w; w = w->parentWidget())
                if (auto *a = qobject_cast<QScrollArea *>(w))
                    return a;
            return nullptr;
        }();
        QVERIFY(area);
        panel->resize(340, 300);  // short enough to scroll
        QTRY_VERIFY(area->verticalScrollBar()->maximum() > 0);
        area->verticalScrollBar()->setValue(0);
        const int before = epochs->value();
        const auto wheel = [&](int notches) {
            const QPointF at(epochs->width() / 2.0, epochs->height() / 2.0);
            QWheelEvent event(at, epochs->mapToGlobal(at), QPoint(), QPoint(0, -120 * notches), Qt::NoButton, Qt::NoModifier,
                              Qt::NoScrollPhase, false);
            QApplication::sendEvent(epochs, &event);
        };
        panel->setFocus();
        QVERIFY(!epochs->hasFocus());
        wheel(3);
        QCOMPARE(epochs->value(), before);
        QCOMPARE(doc->undoStack()->count(), 0);
        QVERIFY2(area->verticalScrollBar()->value() > 0, "the wheel did not scroll the inspector");
        // Clicked into, the field takes the wheel.
        epochs->setFocus();
        QTRY_VERIFY(epochs->hasFocus());
        wheel(-2);
        QCOMPARE(epochs->value(), before + 2);
        QCOMPARE(doc->preset().training.value(QStringLiteral("epochs")).toInt(), before + 2);
    }

    void trainingSettingsWhenNothingIsSelected()
    {
        doc->setSelectedNodes({});
        QVERIFY(panel->shownNode().isEmpty());
        auto *epochs = qobject_cast<QSpinBox *>(panel->trainingForm()->editor(QStringLiteral("epochs"))->input());
        typeInto(epochs, QStringLiteral("25"));
        QCOMPARE(doc->preset().training.value(QStringLiteral("epochs")).toInt(), 25);
        QCOMPARE(doc->undoStack()->count(), 1);
        QTest::keyClicks(panel->presetNameEditor(), QStringLiteral(" v2"));
        QCOMPARE(doc->preset().name, QStringLiteral("Fashion-MNIST ResNet v2"));
        QCOMPARE(doc->undoStack()->count(), 2);  // three keystrokes, one step
        doc->undoStack()->undo();
        QCOMPARE(panel->presetNameEditor()->text(), QStringLiteral("Fashion-MNIST ResNet"));
        // The hypothesis is edited beside them, one undo step for the typing, and saved with the preset.
        QTest::keyClicks(panel->hypothesisEditor(), QStringLiteral("wider is better"));
        QCOMPARE(doc->preset().hypothesis, QStringLiteral("wider is better"));
        QCOMPARE(presetToJson(doc->preset()).value(QStringLiteral("hypothesis")).toString(), QStringLiteral("wider is better"));
        const int steps = doc->undoStack()->count();
        doc->undoStack()->undo();
        QCOMPARE(doc->preset().hypothesis, QString());
        QCOMPARE(panel->hypothesisEditor()->text(), QString());
        doc->undoStack()->redo();
        QCOMPARE(panel->hypothesisEditor()->text(), QStringLiteral("wider is better"));
        QCOMPARE(doc->undoStack()->count(), steps);
        // Training issues show beside their field.
        doc->setTrainingValue(QStringLiteral("early_stop_metric"), QStringLiteral("val/loss"));
        QCOMPARE(panel->trainingForm()->editor(QStringLiteral("early_stop_metric"))->value().toString(), QStringLiteral("val/loss"));
    }
    // The training settings fall into sections; every key is in exactly one, the everyday ones open and the
    // rest folded, each header counting what is set in it.
    void trainingSettingsAreGroupedAndTheRareOnesFolded()
    {
        QStringList grouped;
        for (const ParamGroup &group : InspectorPanel::trainingGroups())
            for (const QString &name : group.names) {
                QVERIFY2(trainingSpec(name), qPrintable(name + QStringLiteral(" is not a training setting")));
                QVERIFY2(!grouped.contains(name), qPrintable(name + QStringLiteral(" is in two sections")));
                grouped << name;
            }
        for (const ParamSpec &spec : trainingSpecs())
            QVERIFY2(grouped.contains(spec.name), qPrintable(spec.name + QStringLiteral(" is in no section")));
        doc->setSelectedNodes({});
        ParamForm *form = panel->trainingForm();
        QCOMPARE(form->sections().size(), InspectorPanel::trainingGroups().size());  // no "Other"
        QVERIFY(form->section(QStringLiteral("epochs"))->isOpen());
        QVERIFY(form->editor(QStringLiteral("epochs"))->isVisible());
        QVERIFY(!form->section(QStringLiteral("dist_timeout"))->isOpen());
        QVERIFY(!form->editor(QStringLiteral("dist_timeout"))->isVisible());
        QVERIFY(!form->editor(QStringLiteral("clip_grad_norm"))->isVisible());
        QVERIFY(panel->stagesSection()->isOpen());  // stages come right after the folded sections
        // A setting made explicit is counted on its folded section's header.
        CollapsibleSection *gradients = form->section(QStringLiteral("clip_grad_norm"));
        const QString before = gradients->note();
        doc->setTrainingValue(QStringLiteral("clip_grad_norm"), 1.0);
        QVERIFY2(gradients->note().contains(QStringLiteral("1 set")), qPrintable(before + QStringLiteral(" -> ") + gradients->note()));
        QVERIFY(!gradients->isOpen());
        // Clicking the header opens it, and the choice is remembered for the next inspector.
        QTest::mouseClick(gradients->header(), Qt::LeftButton);
        QVERIFY(gradients->isOpen());
        QVERIFY(form->editor(QStringLiteral("clip_grad_norm"))->isVisible());
        InspectorPanel again(doc.get());
        QVERIFY(again.trainingForm()->section(QStringLiteral("clip_grad_norm"))->isOpen());
        QVERIFY(!again.trainingForm()->section(QStringLiteral("dist_timeout"))->isOpen());
    }

    // Nothing that needs the user is folded away: focusing a setting (from the issues list) and a problem found
    // by validation both open its section.
    void foldedSettingsOpenForFocusAndProblems()
    {
        doc->setSelectedNodes({});
        ParamForm *form = panel->trainingForm();
        QVERIFY(!form->section(QStringLiteral("dist_timeout"))->isOpen());
        panel->focusParam(QStringLiteral("training.dist_timeout"));
        QVERIFY(form->section(QStringLiteral("dist_timeout"))->isOpen());
        QVERIFY(form->editor(QStringLiteral("dist_timeout"))->isVisible());

        CollapsibleSection *checkpoints = form->section(QStringLiteral("early_stop_metric"));
        QVERIFY(!checkpoints->isOpen());
        doc->setTrainingValue(QStringLiteral("early_stop_metric"), QStringLiteral("val/no_such_metric"));
        doc->validateNow();
        QCoreApplication::processEvents();
        QVERIFY(checkpoints->isOpen());
        QVERIFY2(checkpoints->note().contains(QStringLiteral("1 problem")), qPrintable(checkpoints->note()));
    }

    // Leaving a field with text that is not a value puts the value back and says what was dropped, instead of
    // leaving text on screen that the preset does not hold.
    void invalidTextIsDroppedWhenTheFieldIsLeft()
    {
        doc->setSelectedNodes({QStringLiteral("opt")});
        ParamEditor *editor = panel->nodeForm()->editor(QStringLiteral("lr"));
        auto *lr = qobject_cast<QLineEdit *>(editor->input());
        const QJsonValue stored = param(QStringLiteral("opt"), QStringLiteral("lr"));
        const QString shown = lr->text();
        const int steps = doc->undoStack()->count();
        QTest::keyClick(lr, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(lr, QStringLiteral("fast"));
        QVERIFY(!editor->problem().isEmpty());
        QTest::keyClick(lr, Qt::Key_Return);  // editing finished, as leaving the field does
        QCOMPARE(lr->text(), shown);
        QVERIFY(editor->problem().isEmpty());
        QCOMPARE(param(QStringLiteral("opt"), QStringLiteral("lr")), stored);
        QCOMPARE(doc->undoStack()->count(), steps);
        const auto notes = panel->nodeForm()->findChildren<QLabel *>();
        const bool said = std::any_of(notes.begin(), notes.end(), [](const QLabel *l) {
            return l->text().contains(QStringLiteral("“fast” was not applied"));
        });
        QVERIFY(said);
        // The next valid edit replaces the message with the usual note.
        typeInto(lr, QStringLiteral("0.01"));
        QCOMPARE(param(QStringLiteral("opt"), QStringLiteral("lr")).toDouble(), 0.01);
        const auto after = panel->nodeForm()->findChildren<QLabel *>();
        QVERIFY(std::none_of(after.begin(), after.end(), [](const QLabel *l) {
            return l->text().contains(QStringLiteral("was not applied"));
        }));
    }
};

TY_TEST_CLASS(TestInspector)

#include "test_inspector.moc"
