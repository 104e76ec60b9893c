#include "param_form.h"

#include "common/canvas_style.h"
#include "document/pipeline_document.h"
#include "param_editor.h"

#include "param_values.h"

#include "common/collapsible_section.h"

#include <QGridLayout>
#include <QLabel>
#include <QMenu>
#include <QVBoxLayout>

#include <algorithm>

namespace ty {

namespace {
QGridLayout *formGrid(QWidget *owner)
{
    auto *grid = new QGridLayout(owner);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(8);
    grid->setVerticalSpacing(1);
    grid->setColumnStretch(1, 1);
    return grid;
}
} // namespace

ParamForm::ParamForm(const QList<ParamSpec> &specs, QWidget *parent) : QWidget(parent), m_specs(specs)
{
    QGridLayout *grid = formGrid(this);
    int row = 0;
    for (const ParamSpec &spec : specs)
        addRow(grid, row, spec);
    grid->setRowStretch(row, 1);
}

ParamForm::ParamForm(const QList<ParamSpec> &specs, const QList<ParamGroup> &groups, const QString &settingsPrefix,
                     QWidget *parent)
    : QWidget(parent), m_specs(specs)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    QList<ParamGroup> all = groups;
    ParamGroup other{tr("Other"), {}, false};
    for (const ParamSpec &spec : specs) {
        const bool grouped = std::any_of(groups.begin(), groups.end(),
                                         [&](const ParamGroup &g) { return g.names.contains(spec.name); });
        if (!grouped)
            other.names << spec.name;
    }
    if (!other.names.isEmpty())
        all << other;
    for (const ParamGroup &group : all) {
        auto *body = new QWidget;
        QGridLayout *grid = formGrid(body);
        grid->setContentsMargins(14, 2, 0, 0);
        int row = 0;
        for (const QString &name : group.names)
            for (const ParamSpec &spec : specs)
                if (spec.name == name && !m_editors.contains(name))
                    addRow(grid, row, spec);
        if (row == 0) {
            delete body;
            continue;
        }
        auto *section = new CollapsibleSection(group.title, body, group.openByDefault,
                                               settingsPrefix.isEmpty() ? QString() : settingsPrefix + group.title, this);
        layout->addWidget(section);
        m_sections << section;
        for (const QString &name : group.names)
            if (m_editors.contains(name) && !m_sectionOf.contains(name))
                m_sectionOf.insert(name, section);
    }
    refreshSectionNotes();
}

void ParamForm::addRow(QGridLayout *grid, int &row, const ParamSpec &spec)
{
    QWidget *owner = grid->parentWidget();
    Row r;
    r.name = new QLabel(spec.name, owner);
    r.name->setToolTip(spec.doc);
    r.name->setTextInteractionFlags(Qt::TextSelectableByMouse);
    r.name->setContextMenuPolicy(Qt::CustomContextMenu);
    r.note = new QLabel(owner);
    r.note->setWordWrap(true);
    QFont small = r.note->font();
    small.setPointSizeF(small.pointSizeF() * 0.88);
    r.note->setFont(small);
    auto *editor = new ParamEditor(spec, owner);
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
        if (!m_rows[name].discarded.isEmpty()) {
            m_rows[name].discarded.clear();
            refreshNote(name);
        }
        Q_EMIT valueEdited(name, value, m_sessions.value(name));
    });
    connect(editor, &ParamEditor::editingFinished, this, [this, name] { m_sessions.remove(name); });
    connect(editor, &ParamEditor::resetRequested, this, [this, name] {
        m_sessions.remove(name);
        Q_EMIT resetRequested(name);
    });
    connect(editor, &ParamEditor::problemChanged, this, [this, name](const QString &problem) {
        m_rows[name].typedProblem = problem;
        if (!problem.isEmpty())
            m_rows[name].discarded.clear();
        refreshNote(name);
        refreshSectionNotes();
    });
    connect(editor, &ParamEditor::textDiscarded, this, [this, name](const QString &message) {
        m_rows[name].discarded = message;
        refreshNote(name);
    });
    refreshNote(name);
}

void ParamForm::reveal(const QString &name)
{
    if (CollapsibleSection *section = m_sectionOf.value(name))
        section->setOpen(true);
}

void ParamForm::refreshSectionNotes()
{
    for (CollapsibleSection *section : std::as_const(m_sections)) {
        int set = 0, problems = 0;
        for (auto it = m_sectionOf.cbegin(); it != m_sectionOf.cend(); ++it) {
            if (it.value() != section)
                continue;
            set += m_editors.value(it.key())->isExplicit() ? 1 : 0;
            const Row &row = m_rows[it.key()];
            problems += row.typedProblem.isEmpty() && row.issue.isEmpty() ? 0 : 1;
        }
        QStringList note;
        if (set > 0)
            note << tr("%1 set").arg(set);
        if (problems > 0)
            note << (problems == 1 ? tr("1 problem") : tr("%1 problems").arg(problems));
        section->setNote(note.join(QStringLiteral(" · ")));
        if (problems > 0)
            section->setOpen(true);  // a problem is never folded away
    }
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
    refreshSectionNotes();
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
    refreshSectionNotes();
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
    const QString problem = !row.typedProblem.isEmpty() ? row.typedProblem
                            : !row.discarded.isEmpty() ? row.discarded
                                                       : row.issue;
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
