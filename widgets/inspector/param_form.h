#pragma once
// A form of ParamEditors for a list of specs (a block's parameters, or the training settings): per row the
// name (bold while set explicitly), the editor with its reset button, and below it the doc and the default,
// replaced by the problem in red while the typed text is invalid or validation names the parameter.
// It reports edits with an edit session per field, so typing in one field makes one undo step.
// Ownership: owns its editors. Thread affinity: the GUI thread.

#include "block_descriptor.h"

#include <QHash>
#include <QJsonObject>
#include <QWidget>

class QLabel;

namespace ty {

class ParamEditor;

class ParamForm : public QWidget {
    Q_OBJECT
public:
    ParamForm(const QList<ParamSpec> &specs, QWidget *parent = nullptr);

    // Shows the explicit values; parameters missing from `values` show their default.
    void setValues(const QJsonObject &values);
    // Problems found by validation, by parameter name (replaces the previous ones).
    void setIssues(const QHash<QString, QString> &issues);
    void setBaseDir(const QString &dir);
    ParamEditor *editor(const QString &name) const { return m_editors.value(name); }
    QStringList names() const;

Q_SIGNALS:
    // `session` is the same for consecutive edits of one field until its editing finishes; 0 never repeats.
    void valueEdited(const QString &name, const QJsonValue &value, int session);
    void resetRequested(const QString &name);
    // "Sweep This Parameter…" from the context menu of a parameter's name.
    void sweepRequested(const QString &name);

private:
    struct Row {
        QLabel *name = nullptr;
        QLabel *note = nullptr;
        QString typedProblem;
        QString issue;
    };
    void refreshNote(const QString &name);

    QList<ParamSpec> m_specs;
    QHash<QString, ParamEditor *> m_editors;
    QHash<QString, Row> m_rows;
    QHash<QString, int> m_sessions;  // fields being typed in
};

} // namespace ty
