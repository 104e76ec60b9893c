#pragma once
// A form of ParamEditors for a list of specs (a block's parameters, or the training settings): per row the
// name (bold while set explicitly), the editor with its reset button, and below it the doc and the default,
// replaced by the problem in red while the typed text is invalid or validation names the parameter.
// It reports edits with an edit session per field, so typing in one field makes one undo step.
// With groups, the rows fall into folding sections (CollapsibleSection) in the groups' order, each header noting
// how many of its parameters are set; a section opens by itself when one of its parameters has a problem or is
// focused. Parameters no group names go to a last section, "Other".
// Ownership: owns its editors. Thread affinity: the GUI thread.

#include "block_descriptor.h"

#include <QHash>
#include <QJsonObject>
#include <QWidget>

class QGridLayout;
class QLabel;

namespace ty {

class CollapsibleSection;
class ParamEditor;

struct ParamGroup {
    QString title;
    QStringList names;
    bool openByDefault = true;
};

class ParamForm : public QWidget {
    Q_OBJECT
public:
    ParamForm(const QList<ParamSpec> &specs, QWidget *parent = nullptr);
    // `settingsPrefix` keeps each section's open state in QSettings (prefix + title).
    ParamForm(const QList<ParamSpec> &specs, const QList<ParamGroup> &groups, const QString &settingsPrefix,
              QWidget *parent = nullptr);

    // Shows the explicit values; parameters missing from `values` show their default.
    void setValues(const QJsonObject &values);
    // Problems found by validation, by parameter name (replaces the previous ones).
    void setIssues(const QHash<QString, QString> &issues);
    void setBaseDir(const QString &dir);
    ParamEditor *editor(const QString &name) const { return m_editors.value(name); }
    QStringList names() const;
    // The section holding a parameter (null without groups), opened by focusing it.
    CollapsibleSection *section(const QString &name) const { return m_sectionOf.value(name); }
    QList<CollapsibleSection *> sections() const { return m_sections; }
    void reveal(const QString &name);  // opens its section

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
        QString discarded;  // invalid text the field dropped when the user left it
        QString issue;
    };
    void addRow(QGridLayout *grid, int &row, const ParamSpec &spec);
    void refreshNote(const QString &name);
    void refreshSectionNotes();

    QList<ParamSpec> m_specs;
    QHash<QString, ParamEditor *> m_editors;
    QHash<QString, Row> m_rows;
    QHash<QString, int> m_sessions;  // fields being typed in
    QList<CollapsibleSection *> m_sections;
    QHash<QString, CollapsibleSection *> m_sectionOf;
};

} // namespace ty
