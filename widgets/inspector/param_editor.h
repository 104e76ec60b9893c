#pragma once
// The editor of one parameter (or training setting), generated from its ParamSpec: a spin box for integers
// (a line edit beyond the int range), a line edit for floats (so 1e-4 reads as typed) and float lists, a check
// box, a combo box for choices, a line edit for strings, and a line edit with a "…" file dialog for paths.
// Text is parsed and range-checked with parseParamText; invalid text is marked and never sent, and leaving the
// field puts the value back (textDiscarded says what was dropped). Text fields
// show an explicit value as text and the default as the placeholder; clearing one, or the reset button
// (enabled while the value is set explicitly), asks for the default.
//
// It changes nothing itself: it reports edits, and the owner turns them into undo commands.
// Ownership: a plain child widget. Thread affinity: the GUI thread.

#include "block_descriptor.h"

#include <QJsonValue>
#include <QWidget>

class QLineEdit;
class QToolButton;

namespace ty {

class ParamEditor : public QWidget {
    Q_OBJECT
public:
    explicit ParamEditor(const ParamSpec &spec, QWidget *parent = nullptr);

    const ParamSpec &spec() const { return m_spec; }
    // Shows the model's value (no signals). `explicitlySet` enables the reset button.
    void setValue(const QJsonValue &value, bool explicitlySet);
    QJsonValue value() const { return m_value; }  // the effective value shown
    bool isExplicit() const { return m_explicit; }
    QString problem() const { return m_problem; }
    // For a choice: grey out one choice, with the reason as its tooltip (the value still shows if set).
    void setChoiceUnavailable(const QString &choice, const QString &reason);
    QWidget *input() const { return m_input; }  // the QSpinBox, QLineEdit, QCheckBox or QComboBox
    QToolButton *resetButton() const { return m_reset; }
    void setBaseDir(const QString &dir) { m_baseDir = dir; }  // relative paths resolve against it

Q_SIGNALS:
    void valueEdited(const QJsonValue &value);  // a valid value the user entered
    void editingFinished();                     // the next edit starts a new undo step
    void resetRequested();
    void problemChanged(const QString &problem);  // invalid text (empty when fixed)
    // The user left the field with invalid text: it shows the value again, and `message` says what was dropped.
    void textDiscarded(const QString &message);

private:
    QWidget *createInput();
    QWidget *createIntInput();
    QWidget *createTextInput(bool commitWhileTyping);
    QWidget *createPathInput();
    void textEdited(const QString &text);
    void commit(const QJsonValue &value);
    void setProblem(const QString &problem);
    void discardInvalidText();
    void browse();
    QLineEdit *lineEdit() const;  // the text field, for text-based editors

    ParamSpec m_spec;
    QWidget *m_input = nullptr;
    QToolButton *m_reset = nullptr;
    QJsonValue m_value;
    bool m_explicit = false;
    bool m_shown = false;
    QString m_problem;
    QString m_baseDir;
};

} // namespace ty
