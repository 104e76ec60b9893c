#include "stages_editor.h"

#include "inspector_helpers.h"

#include "common/wheel_guard.h"
#include "document/pipeline_document.h"
#include "document/training_stage_edits.h"
#include "icons/icon_library.h"

#include "block_registry.h"
#include "training_stages.h"

#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QListWidget>
#include <QLineEdit>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QToolButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace ty {

using namespace inspector;

namespace {

bool isNetworkNode(const Node &node)
{
    const BlockDescriptor *block = BlockRegistry::builtin().find(node.block);
    return block && (block->category == BlockCategory::Layer || block->category == BlockCategory::Transform);
}

QIcon blankIcon()
{
    QPixmap blank(14, 14);
    blank.fill(Qt::transparent);
    return QIcon(blank);
}

QString stageRowText(const StagePlan &plan)
{
    QString text = QStringLiteral("%1.  %2  ·  %3").arg(plan.index + 1).arg(plan.name,
                                                                             style::counted(plan.epochs, QObject::tr("epoch"), QObject::tr("epochs")));
    if (!plan.frozen.isEmpty())
        text += QObject::tr("  ·  %1 frozen").arg(plan.frozen.size());
    return text;
}

} // namespace

StagesEditor::StagesEditor(PipelineDocument *document, QWidget *parent) : QWidget(parent), m_document(document)
{
    buildUi();
    connect(document, &PipelineDocument::documentReset, this, &StagesEditor::refresh);
    connect(document, &PipelineDocument::trainingChanged, this, &StagesEditor::refresh);
    connect(document, &PipelineDocument::nodeAdded, this, &StagesEditor::refresh);
    connect(document, &PipelineDocument::nodeRemoved, this, &StagesEditor::refresh);
    connect(document, &PipelineDocument::nodeRenamed, this, &StagesEditor::refresh);
    connect(document, &PipelineDocument::shownStageChanged, this, [this](int index) {
        if (m_list->currentRow() != index) {
            const QSignalBlocker blocker(m_list);
            m_list->setCurrentRow(index);
        }
        refreshFields();
    });
    connect(document, &PipelineDocument::reportChanged, this, &StagesEditor::refreshReport);
    refresh();
}

void StagesEditor::buildUi()
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_hint = mutedLabel(tr("One stage of training.epochs. Add stages to train in steps, each with its own epochs, "
                           "settings and frozen nodes; the next stage starts from the weights the last one left."), this);
    layout->addWidget(m_hint);
    m_list = new QListWidget(this);
    layout->addWidget(m_list);
    auto *buttons = new QHBoxLayout;
    auto button = [&](const QString &text, const QString &tip) {
        auto *b = new QToolButton(this);  // narrow: the inspector is a side panel
        b->setText(text);
        b->setToolTip(tip);
        buttons->addWidget(b);
        return b;
    };
    m_add = button(tr("Add"), tr("Add a stage at the end (the first one takes training.epochs)"));
    m_remove = button(tr("Remove"), tr("Remove the selected stage"));
    m_up = button(tr("Up"), tr("Move the selected stage one earlier"));
    m_down = button(tr("Down"), tr("Move the selected stage one later"));
    buttons->addStretch(1);
    layout->addLayout(buttons);

    m_fields = new QWidget(this);
    auto *form = new QFormLayout(m_fields);
    form->setContentsMargins(0, 4, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_name = new QLineEdit(m_fields);
    form->addRow(tr("Name"), m_name);
    m_epochs = new QSpinBox(m_fields);
    m_epochs->setRange(1, 1000000);
    takeWheelOnlyWhenFocused(m_epochs);
    form->addRow(tr("Epochs"), m_epochs);
    m_reset = new QComboBox(m_fields);
    m_reset->addItems({tr("automatic"), tr("reset"), tr("keep state")});
    takeWheelOnlyWhenFocused(m_reset);
    m_reset->setToolTip(tr("Whether the optimizer starts afresh (moments, momentum) when this stage begins; "
                           "automatic: when the trainable nodes change"));
    form->addRow(tr("Optimizer"), m_reset);
    m_overrides = new QPlainTextEdit(m_fields);
    m_overrides->setPlaceholderText(tr("opt.lr=1e-4\ntraining.batch_size=64"));
    m_overrides->setToolTip(tr("Settings this stage changes, one KEY=VALUE a line as with --set: NODE.PARAM or "
                               "training.KEY. Later stages inherit them. Applied when you leave the field."));
    m_overrides->setFixedHeight(m_overrides->fontMetrics().lineSpacing() * 4 + 12);
    m_overrides->installEventFilter(this);
    m_overridesProblem = errorLabel(m_fields);
    auto *overrides = new QVBoxLayout;
    overrides->setSpacing(2);
    overrides->addWidget(m_overrides);
    overrides->addWidget(m_overridesProblem);
    form->addRow(tr("Overrides"), overrides);
    m_frozen = new QListWidget(m_fields);
    m_frozen->setIconSize(QSize(14, 14));  // rows of one height, with or without the lock
    m_frozen->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setToolTip(tr("Frozen nodes take no gradient and no optimizer step and compute as in evaluation. "
                            "What an earlier stage froze stays frozen until unchecked."));
    form->addRow(tr("Frozen"), m_frozen);
    m_problems = errorLabel(m_fields);
    form->addRow(m_problems);
    m_counts = mutedLabel(QString(), m_fields);
    form->addRow(m_counts);
    layout->addWidget(m_fields);

    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
        if (!m_refreshing)
            m_document->setShownStage(row);
    });
    connect(m_add, &QToolButton::clicked, this, &StagesEditor::addStage);
    connect(m_remove, &QToolButton::clicked, this, &StagesEditor::removeStage);
    connect(m_up, &QToolButton::clicked, this, [this] { moveStage(-1); });
    connect(m_down, &QToolButton::clicked, this, [this] { moveStage(1); });
    connect(m_name, &QLineEdit::textEdited, this, &StagesEditor::setName);
    connect(m_name, &QLineEdit::editingFinished, this, [this] { endSession(QStringLiteral("name")); });
    connect(m_epochs, &QSpinBox::valueChanged, this, [this](int value) {
        if (!m_refreshing)
            setEpochs(value);
    });
    connect(m_epochs, &QSpinBox::editingFinished, this, [this] { endSession(QStringLiteral("epochs")); });
    connect(m_reset, &QComboBox::activated, this, &StagesEditor::setResetOptimizer);
    connect(m_frozen, &QListWidget::itemChanged, this, [this] {
        if (m_refreshing)
            return;
        QStringList nodes;
        for (int i = 0; i < m_frozen->count(); ++i)
            if (m_frozen->item(i)->checkState() == Qt::Checked)
                nodes << m_frozen->item(i)->data(Qt::UserRole).toString();
        setFrozenNodes(nodes);
    });
}

bool StagesEditor::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_overrides && event->type() == QEvent::FocusOut)
        setOverridesText(m_overrides->toPlainText());
    return QWidget::eventFilter(watched, event);
}

int StagesEditor::currentStage() const { return m_document->shownStage(); }

void StagesEditor::selectStage(int index) { m_document->setShownStage(index); }

void StagesEditor::refresh()
{
    m_refreshing = true;
    const QList<StagePlan> plans = stage_edits::stagesOf(m_document->preset().training).isEmpty()
                                       ? QList<StagePlan>()
                                       : planStages(m_document->preset());
    {
        const QSignalBlocker blocker(m_list);
        while (m_list->count() > plans.size())
            delete m_list->takeItem(m_list->count() - 1);
        for (int i = 0; i < plans.size(); ++i) {
            if (i >= m_list->count())
                m_list->addItem(QString());
            m_list->item(i)->setText(stageRowText(plans.at(i)));
        }
        m_list->setCurrentRow(m_document->shownStage());
    }
    const int rowHeight = m_list->count() > 0 ? m_list->sizeHintForRow(0) : m_list->fontMetrics().height() + 4;
    m_list->setFixedHeight(rowHeight * std::clamp(int(plans.size()), 2, 6) + 2 * m_list->frameWidth() + 2);
    m_hint->setVisible(plans.isEmpty());
    m_list->setVisible(!plans.isEmpty());
    m_refreshing = false;
    if (!plans.isEmpty() && m_document->shownStage() < 0)
        m_document->setShownStage(0);  // refreshes the fields
    else
        refreshFields();
}

void StagesEditor::refreshFields()
{
    m_refreshing = true;
    const int index = currentStage();
    const int count = int(stage_edits::stagesOf(m_document->preset().training).size());
    m_fields->setVisible(index >= 0);
    m_remove->setEnabled(index >= 0);
    m_up->setEnabled(index > 0);
    m_down->setEnabled(index >= 0 && index + 1 < count);
    m_remove->setVisible(count > 0);
    m_up->setVisible(count > 1);
    m_down->setVisible(count > 1);
    if (index >= 0) {
        const QList<StagePlan> plans = planStages(m_document->preset());
        const QJsonObject stage = stage_edits::stagesOf(m_document->preset().training).at(index).toObject();
        if (!m_name->hasFocus() || m_sessionField != QStringLiteral("name"))
            m_name->setText(stage.value(QStringLiteral("name")).toString());
        m_name->setPlaceholderText(tr("stage %1").arg(index + 1));
        m_epochs->setValue(stage.value(QStringLiteral("epochs")).toInt(1));
        const QJsonValue reset = stage.value(QStringLiteral("reset_optimizer"));
        m_reset->setCurrentIndex(reset.isBool() ? (reset.toBool() ? 1 : 2) : 0);
        if (!m_overrides->hasFocus())
            m_overrides->setPlainText(stage_edits::overridesText(stage.value(QStringLiteral("set")).toObject()));
        m_overridesProblem->hide();
        const QStringList frozen = index < plans.size() ? plans.at(index).frozen : QStringList();
        // Rebuilt only when the nodes change: a click on a box lands here (through the undo command) while the
        // list is still emitting itemChanged for that item.
        QStringList ids;
        for (const Node &node : m_document->graph().nodes)
            if (isNetworkNode(node))
                ids << node.id;
        QStringList shown;
        for (int i = 0; i < m_frozen->count(); ++i)
            shown << m_frozen->item(i)->data(Qt::UserRole).toString();
        if (shown != ids) {
            m_frozen->clear();
            for (const QString &id : ids) {
                auto *item = new QListWidgetItem(id, m_frozen);
                item->setData(Qt::UserRole, id);
                item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
            }
        }
        for (int i = 0; i < m_frozen->count(); ++i) {
            QListWidgetItem *item = m_frozen->item(i);
            const bool isFrozen = frozen.contains(item->data(Qt::UserRole).toString());
            item->setCheckState(isFrozen ? Qt::Checked : Qt::Unchecked);
            item->setIcon(isFrozen ? icons::actionIcon(QStringLiteral("lock")) : blankIcon());  // blank: names align
        }
        const int rowHeight = m_frozen->count() > 0 ? m_frozen->sizeHintForRow(0) : m_frozen->fontMetrics().height() + 4;
        m_frozen->setFixedHeight(rowHeight * std::min(std::max(int(m_frozen->count()), 2), 12) + 2 * m_frozen->frameWidth() + 4);
    }
    m_refreshing = false;
    refreshReport();
}

void StagesEditor::refreshReport()
{
    const int index = currentStage();
    if (index < 0)
        return;
    const ShapeReport &report = m_document->report();
    const QString prefix = QStringLiteral("training.stages[%1]").arg(index);
    QStringList problems;
    for (const Issue &issue : report.issues)
        if (issue.param == prefix || issue.param.startsWith(prefix + QLatin1Char('.')))
            problems << QStringLiteral("%1 %2: %3")
                            .arg(issue.severity == Severity::Error ? QStringLiteral("●") : QStringLiteral("▲"),
                                 issue.param.mid(prefix.size() + 1).isEmpty() ? tr("stage") : issue.param.mid(prefix.size() + 1),
                                 issue.message);
    m_problems->setText(problems.join(QLatin1Char('\n')));
    m_problems->setVisible(!problems.isEmpty());
    // Parameter counts per node, as validation found them.
    for (int i = 0; i < m_frozen->count(); ++i) {
        QListWidgetItem *item = m_frozen->item(i);
        const qint64 params = report.nodes.value(item->data(Qt::UserRole).toString()).paramCount;
        const QSignalBlocker blocker(m_frozen);
        item->setText(params > 0 ? QStringLiteral("%1  ·  %2").arg(item->data(Qt::UserRole).toString(), style::compactCount(params))
                                 : item->data(Qt::UserRole).toString());
        item->setToolTip(params > 0 ? tr("%1 parameters").arg(style::groupedCount(params)) : tr("no parameters"));
    }
    if (index < report.stages.size()) {
        const StageSummary &stage = report.stages.at(index);
        m_counts->setText(tr("%1 trainable · %2 frozen parameters%3")
                              .arg(style::groupedCount(stage.trainableParams), style::groupedCount(stage.frozenParams),
                                   stage.resetOptimizer && index > 0 ? tr("; the optimizer starts afresh") : QString()));
    } else {
        m_counts->clear();
    }
}

} // namespace ty
