#include "param_editor.h"

#include "common/wheel_guard.h"
#include "icons/icon_library.h"

#include "param_values.h"

#include <QCheckBox>
#include <QComboBox>
#include <QStandardItemModel>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>

#include <algorithm>
#include <climits>
#include <cmath>

namespace ty {

namespace {
bool fitsSpinBox(const ParamSpec &spec)
{
    return std::isfinite(spec.maximum) && spec.maximum <= INT_MAX && std::isfinite(spec.minimum)
           && spec.minimum >= INT_MIN;
}

bool isDirectoryParam(const ParamSpec &spec)
{
    return spec.name == QStringLiteral("dir") || spec.name.endsWith(QStringLiteral("_dir"));
}
} // namespace

ParamEditor::ParamEditor(const ParamSpec &spec, QWidget *parent) : QWidget(parent), m_spec(spec)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_input = createInput();
    m_input->setToolTip(spec.doc);
    layout->addWidget(m_input, 1);
    m_reset = new QToolButton(this);
    m_reset->setIcon(icons::actionIcon(QStringLiteral("reset")));
    m_reset->setAutoRaise(true);
    m_reset->setToolTip(tr("Reset to the default (%1)").arg(paramValueText(spec.defaultValue)));
    m_reset->setEnabled(false);
    layout->addWidget(m_reset);
    connect(m_reset, &QToolButton::clicked, this, &ParamEditor::resetRequested);
    setValue(spec.defaultValue, false);
}

QWidget *ParamEditor::createInput()
{
    switch (m_spec.type) {
    case ParamType::Int:
        return fitsSpinBox(m_spec) ? createIntInput() : createTextInput(true);
    case ParamType::Float:
    case ParamType::FloatList:
        return createTextInput(true);
    case ParamType::Bool: {
        auto *box = new QCheckBox(this);
        connect(box, &QCheckBox::toggled, this, [this](bool on) {
            commit(on);
            Q_EMIT editingFinished();
        });
        return box;
    }
    case ParamType::Choice: {
        auto *box = new QComboBox(this);
        takeWheelOnlyWhenFocused(box);
        box->addItems(m_spec.choices);
        connect(box, &QComboBox::activated, this, [this, box](int index) {
            commit(box->itemText(index));
            Q_EMIT editingFinished();
        });
        return box;
    }
    case ParamType::String:
        return createTextInput(false);
    case ParamType::Path:
        return createPathInput();
    }
    return createTextInput(false);
}

void ParamEditor::setChoiceUnavailable(const QString &choice, const QString &reason)
{
    auto *box = qobject_cast<QComboBox *>(m_input);
    auto *model = box ? qobject_cast<QStandardItemModel *>(box->model()) : nullptr;
    const int index = box ? box->findText(choice) : -1;
    if (!model || index < 0)
        return;
    model->item(index)->setEnabled(false);
    model->item(index)->setToolTip(reason);
}

QWidget *ParamEditor::createIntInput()
{
    auto *box = new QSpinBox(this);
    takeWheelOnlyWhenFocused(box);
    box->setRange(int(m_spec.minimum), int(m_spec.maximum));
    box->setGroupSeparatorShown(false);
    box->setKeyboardTracking(true);
    connect(box, &QSpinBox::valueChanged, this, [this](int v) { commit(QJsonValue(qint64(v))); });
    connect(box, &QSpinBox::editingFinished, this, &ParamEditor::editingFinished);
    return box;
}

QWidget *ParamEditor::createTextInput(bool commitWhileTyping)
{
    // Empty text means "the default", shown as the placeholder.
    auto *edit = new QLineEdit(this);
    const QString def = paramValueText(m_spec.defaultValue);
    edit->setPlaceholderText(def.isEmpty() ? tr("(empty)") : def);
    if (commitWhileTyping) {
        connect(edit, &QLineEdit::textEdited, this, &ParamEditor::textEdited);
        connect(edit, &QLineEdit::editingFinished, this, [this, edit] {
            if (!m_problem.isEmpty())
                discardInvalidText();
            else if (m_explicit)  // show the value as stored: 1.50 becomes 1.5
                edit->setText(paramValueText(m_value));
            Q_EMIT editingFinished();
        });
    } else {
        connect(edit, &QLineEdit::textEdited, this, [this](const QString &) { setProblem(QString()); });
        connect(edit, &QLineEdit::editingFinished, this, [this, edit] {
            textEdited(edit->text());
            if (!m_problem.isEmpty())
                discardInvalidText();
            Q_EMIT editingFinished();
        });
    }
    return edit;
}

QWidget *ParamEditor::createPathInput()
{
    auto *box = new QWidget(this);
    auto *layout = new QHBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    QWidget *edit = createTextInput(false);
    edit->setParent(box);
    layout->addWidget(edit, 1);
    auto *browse = new QToolButton(box);
    browse->setText(QStringLiteral("…"));
    browse->setToolTip(isDirectoryParam(m_spec) ? tr("Choose a folder") : tr("Choose a file"));
    layout->addWidget(browse);
    connect(browse, &QToolButton::clicked, this, &ParamEditor::browse);
    return box;
}

void ParamEditor::browse()
{
    const QString current = m_value.toString();
    const QDir base(m_baseDir.isEmpty() ? QDir::currentPath() : m_baseDir);
    const QString start = current.isEmpty() ? base.path() : base.absoluteFilePath(current);
    const QString chosen = isDirectoryParam(m_spec)
                               ? QFileDialog::getExistingDirectory(this, tr("Choose %1").arg(m_spec.name), start)
                               : QFileDialog::getOpenFileName(this, tr("Choose %1").arg(m_spec.name), start);
    if (chosen.isEmpty())
        return;
    // Inside the preset's folder, keep the path relative so the preset can move with its data.
    const QString relative = base.relativeFilePath(chosen);
    const QString text = m_baseDir.isEmpty() || relative.startsWith(QStringLiteral("..")) ? chosen : relative;
    if (QLineEdit *edit = lineEdit())
        edit->setText(text);
    commit(text);
    Q_EMIT editingFinished();
}

void ParamEditor::textEdited(const QString &text)
{
    if (text.trimmed().isEmpty()) {
        setProblem(QString());
        if (m_explicit) {
            m_explicit = false;
            m_value = m_spec.defaultValue;
            Q_EMIT resetRequested();
        }
        return;
    }
    QString error;
    const QJsonValue value = parseParamText(m_spec, text, &error);
    if (value.isUndefined()) {
        setProblem(error);
        return;
    }
    setProblem(QString());
    commit(value);
}

void ParamEditor::commit(const QJsonValue &value)
{
    if (value == m_value && m_explicit)
        return;
    m_value = value;
    m_explicit = true;
    Q_EMIT valueEdited(value);
}

void ParamEditor::setProblem(const QString &problem)
{
    if (problem == m_problem)
        return;
    m_problem = problem;
    if (QLineEdit *edit = lineEdit()) {
        if (problem.isEmpty()) {
            edit->setPalette(QPalette());
        } else {
            QPalette palette = edit->palette();
            palette.setColor(QPalette::Base, QColor(0xe0, 0x3c, 0x31, 60));
            edit->setPalette(palette);
        }
        edit->setToolTip(problem.isEmpty() ? m_spec.doc : problem);
    }
    Q_EMIT problemChanged(problem);
}

void ParamEditor::discardInvalidText()
{
    QLineEdit *edit = lineEdit();
    if (!edit)
        return;
    const QString typed = edit->text().trimmed();
    const QString kept = paramValueText(m_explicit ? m_value : m_spec.defaultValue);
    const QString message = tr("“%1” was not applied: %2. It stays %3.")
                                .arg(typed.size() > 40 ? typed.left(40) + QStringLiteral("…") : typed, m_problem,
                                     kept.isEmpty() ? tr("empty") : kept);
    {
        const QSignalBlocker blocker(edit);
        edit->setText(m_explicit ? paramValueText(m_value) : QString());
    }
    setProblem(QString());
    Q_EMIT textDiscarded(message);
}

QLineEdit *ParamEditor::lineEdit() const
{
    if (auto *edit = qobject_cast<QLineEdit *>(m_input))
        return edit;
    return m_input->findChild<QLineEdit *>();
}

void ParamEditor::setValue(const QJsonValue &value, bool explicitlySet)
{
    m_reset->setEnabled(explicitlySet);
    if (m_shown && value == m_value && explicitlySet == m_explicit)
        return;  // already shown (this editor probably sent it): leave the text as typed
    m_shown = true;
    m_value = value;
    m_explicit = explicitlySet;
    setProblem(QString());
    const QSignalBlocker blocker(m_input);
    if (auto *spin = qobject_cast<QSpinBox *>(m_input)) {
        spin->setValue(int(std::clamp(value.toDouble(), double(spin->minimum()), double(spin->maximum()))));
    } else if (auto *check = qobject_cast<QCheckBox *>(m_input)) {
        check->setChecked(value.toBool());
    } else if (auto *combo = qobject_cast<QComboBox *>(m_input)) {
        combo->setCurrentIndex(combo->findText(value.toString()));
    } else if (QLineEdit *edit = lineEdit()) {
        const QSignalBlocker editBlocker(edit);
        edit->setText(explicitlySet ? paramValueText(value) : QString());
    }
}

} // namespace ty
