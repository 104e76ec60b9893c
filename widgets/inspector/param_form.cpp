#include "param_form.h"

#include "common/canvas_style.h"
#include "document/pipeline_document.h"
#include "param_editor.h"

#include "param_values.h"

#include <QGridLayout>
#include <QLabel>
#include <QMenu>

namespace ty {

ParamForm::ParamForm(const QList<ParamSpec> &specs, QWidget *parent) : QWidget(parent), m_specs(specs)
{
    auto *grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(8);
    grid->setVerticalSpacing(1);
    grid->setColumnStretch(1, 1);
    int row = 0;
    for (const ParamSpec &spec : specs) {
        Row r;
        r.name = new QLabel(spec.name, this);
        r.name->setToolTip(spec.doc);
        r.name->setTextInteractionFlags(Qt::TextSelectableByMouse);
        r.name->setContextMenuPolicy(Qt::CustomContextMenu);
        r.note = new QLabel(this);
        r.note->setWordWrap(true);
        QFont small = r.note->font();
        small.setPointSizeF(small.pointSizeF() * 0.88);
        r.note->setFont(small);
        auto *editor = new ParamEditor(spec, this);
        r.name->setBuddy(editor->input());
        grid->addWidget(r.name, row, 0, Qt::AlignVCenter);
        grid->addWidget(editor, row, 1);
        grid->addWidget(r.note, row + 1, 1);
        row += 2;
        grid->addItem(new QSpacerItem(0, 6), row++, 0);

        const QString name = spec.name;
        m_editors.insert(name, editor);
        m_rows.insert(name, r);
        connect(r.name, &QLabel::customContextMenuRequested, this, [this, name, label = r.name](const QPoint &at) {
            QMenu menu(this);
            menu.addAction(tr("Sweep This Parameter…"), this, [this, name] { Q_EMIT sweepRequested(name); });
            menu.exec(label->mapToGlobal(at));
        });
        connect(editor, &ParamEditor::valueEdited, this, [this, name](const QJsonValue &value) {
            if (!m_sessions.contains(name))
                m_sessions.insert(name, nextEditSession());
            Q_EMIT valueEdited(name, value, m_sessions.value(name));
        });
        connect(editor, &ParamEditor::editingFinished, this, [this, name] { m_sessions.remove(name); });
        connect(editor, &ParamEditor::resetRequested, this, [this, name] {
            m_sessions.remove(name);
            Q_EMIT resetRequested(name);
        });
        connect(editor, &ParamEditor::problemChanged, this, [this, name](const QString &problem) {
            m_rows[name].typedProblem = problem;
            refreshNote(name);
        });
        refreshNote(name);
    }
    grid->setRowStretch(row, 1);
}

QStringList ParamForm::names() const
{
    QStringList out;
    for (const ParamSpec &spec : m_specs)
        out << spec.name;
    return out;
}

void ParamForm::setValues(const QJsonObject &values)
{
    for (const ParamSpec &spec : m_specs) {
        const bool set = values.contains(spec.name);
        m_editors.value(spec.name)->setValue(set ? values.value(spec.name) : spec.defaultValue, set);
        QLabel *label = m_rows.value(spec.name).name;
        QFont font = label->font();
        if (font.bold() != set) {
            font.setBold(set);
            label->setFont(font);
        }
    }
}

void ParamForm::setIssues(const QHash<QString, QString> &issues)
{
    for (auto it = m_rows.begin(); it != m_rows.end(); ++it) {
        const QString issue = issues.value(it.key());
        if (issue != it->issue) {
            it->issue = issue;
            refreshNote(it.key());
        }
    }
}

void ParamForm::setBaseDir(const QString &dir)
{
    for (ParamEditor *editor : std::as_const(m_editors))
        editor->setBaseDir(dir);
}

void ParamForm::refreshNote(const QString &name)
{
    const Row &row = m_rows[name];
    const ParamSpec &spec = m_editors.value(name)->spec();
    const QString problem = !row.typedProblem.isEmpty() ? row.typedProblem : row.issue;
    QPalette palette = row.note->palette();
    if (!problem.isEmpty()) {
        row.note->setText(problem);
        palette.setColor(QPalette::WindowText, style::errorColor());
    } else {
        const QString def = paramValueText(spec.defaultValue);
        row.note->setText(def.isEmpty() ? spec.doc : tr("%1 · default %2").arg(spec.doc, def));
        palette.setColor(QPalette::WindowText, style::mutedText(this->palette()));
    }
    row.note->setPalette(palette);
}

} // namespace ty
