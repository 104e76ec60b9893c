#pragma once
// The training stages of the preset (training.stages, docs/presets.md#stages) on the inspector's training page:
// the list of stages (name, epochs, frozen nodes) with Add, Remove, Up and Down; for the selected stage its name,
// epochs, optimizer reset, overrides as KEY=VALUE lines (applied when the field loses focus) and its frozen nodes
// as a checklist of the network nodes. The checklist shows what is frozen in the stage, inherited from earlier
// stages included; checking and unchecking writes the stage's own freeze and unfreeze lists. Below: validation's
// problems of the stage and its trainable and frozen parameter counts.
//
// Every change is one undo command on the document (PipelineDocument::setTrainingSection; typing in one field
// merges into one step); the editor follows the document's signals, so undo and redo show up here. The selected
// stage is the document's shown stage, so the canvas puts a lock badge on the nodes frozen in it.
// Ownership: owns its controls; the document is not owned and must outlive the editor. Thread affinity: GUI.

#include <QJsonObject>
#include <QWidget>

class QComboBox;
class QLabel;
class QListWidget;
class QLineEdit;
class QPlainTextEdit;
class QToolButton;
class QSpinBox;

namespace ty {

class PipelineDocument;

class StagesEditor : public QWidget {
    Q_OBJECT
public:
    explicit StagesEditor(PipelineDocument *document, QWidget *parent = nullptr);

    int currentStage() const;  // -1 when there are none
    void selectStage(int index);

    // The edits the controls make (one undo command each), on the selected stage where it applies.
    void addStage();
    void removeStage();
    void moveStage(int delta);  // -1 up, +1 down
    void setName(const QString &name);
    void setEpochs(int epochs);
    void setResetOptimizer(int choice);  // index into the choice: 0 automatic, 1 reset, 2 keep
    bool setOverridesText(const QString &text);  // false (nothing changes, the problem shown) for a malformed line
    void setFrozenNodes(const QStringList &nodes);

    QListWidget *stageList() const { return m_list; }
    QLineEdit *nameEdit() const { return m_name; }
    QSpinBox *epochsEdit() const { return m_epochs; }
    QComboBox *resetChoice() const { return m_reset; }
    QPlainTextEdit *overridesEdit() const { return m_overrides; }
    QListWidget *frozenList() const { return m_frozen; }
    QToolButton *addButton() const { return m_add; }
    QToolButton *removeButton() const { return m_remove; }
    QToolButton *upButton() const { return m_up; }
    QToolButton *downButton() const { return m_down; }
    QLabel *problemsLabel() const { return m_problems; }
    QLabel *countsLabel() const { return m_counts; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void buildUi();
    void refresh();        // the list and the fields, from the document
    void refreshFields();  // the selected stage's fields
    void refreshReport();  // its problems and parameter counts
    void commit(const QJsonObject &training, const QString &text, const QString &field = QString(), int session = 0);
    int session(const QString &field);
    void endSession(const QString &field);

    PipelineDocument *m_document;
    QListWidget *m_list = nullptr;
    QToolButton *m_add = nullptr, *m_remove = nullptr, *m_up = nullptr, *m_down = nullptr;
    QLabel *m_hint = nullptr;
    QWidget *m_fields = nullptr;
    QLineEdit *m_name = nullptr;
    QSpinBox *m_epochs = nullptr;
    QComboBox *m_reset = nullptr;
    QPlainTextEdit *m_overrides = nullptr;
    QLabel *m_overridesProblem = nullptr;
    QListWidget *m_frozen = nullptr;
    QLabel *m_problems = nullptr;
    QLabel *m_counts = nullptr;
    QString m_sessionField;  // the field being typed in, with its session
    int m_session = 0;
    bool m_refreshing = false;
};

} // namespace ty
