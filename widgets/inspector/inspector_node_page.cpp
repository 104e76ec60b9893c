// InspectorPanel: the page of one node (block, id, shape, issues, parameters).

#include "inspector_helpers.h"
#include "inspector_panel.h"

#include "composite_blocks.h"
#include "composite_grouping.h"
#include "param_values.h"

#include "augmentation_preview_view.h"
#include "dataset_preview.h"
#include "document/pipeline_document.h"
#include "icons/icon_library.h"
#include "param_form.h"

#include "block_registry.h"

#include <QFormLayout>
#include <QGridLayout>
#include <QPushButton>
#include <QToolButton>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace ty {

using namespace inspector;

void InspectorPanel::buildNodePage(const QString &id)
{
    if (m_nodePage)
        m_nodePage->deleteLater();
    const Node *node = m_document->graph().node(id);
    const BlockDescriptor *block = m_document->block(node->block);
    m_nodeId = id;
    m_nodeBlock = node->block;

    auto *content = new QWidget;
    auto *layout = new QVBoxLayout(content);
    layout->setContentsMargins(8, 8, 8, 8);
    auto *title = new QHBoxLayout;
    auto *badge = new QLabel(content);
    if (block)
        badge->setPixmap(icons::categoryIcon(block->category).pixmap(QSize(30, 30), devicePixelRatioF()));
    title->addWidget(badge, 0, Qt::AlignTop);
    auto *name = new QLabel(block ? QStringLiteral("<b>%1</b><br><span style='color:gray'>%2</span>")
                                        .arg(block->displayName.toHtmlEscaped(), block->typeId)
                                  : tr("<b>Unknown block</b><br>%1").arg(node->block.toHtmlEscaped()),
                            content);
    name->setTextInteractionFlags(Qt::TextSelectableByMouse);
    name->setWordWrap(true);
    title->addWidget(name, 1);
    layout->addLayout(title);
    if (block)
        layout->addWidget(mutedLabel(block->doc, content));

    auto *idRow = new QFormLayout;
    idRow->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_idEdit = new QLineEdit(id, content);
    m_idEdit->setValidator(new QRegularExpressionValidator(
        QRegularExpression(QStringLiteral("[A-Za-z_][A-Za-z0-9_]*")), m_idEdit));
    m_idEdit->setToolTip(tr("The node's name in overrides (--set %1.PARAM=VALUE) and metric names").arg(id));
    idRow->addRow(tr("Id"), m_idEdit);
    layout->addLayout(idRow);
    m_idProblem = errorLabel(content);
    layout->addWidget(m_idProblem);
    connect(m_idEdit, &QLineEdit::textEdited, this, [this](const QString &text) {
        const QString problem = m_document->renameProblem(m_nodeId, text);
        m_idProblem->setText(problem);
        m_idProblem->setVisible(!problem.isEmpty());
    });
    connect(m_idEdit, &QLineEdit::editingFinished, this, &InspectorPanel::commitId);

    m_shapeLabel = new QLabel(content);
    m_shapeLabel->setWordWrap(true);  // shape, parameters, memory, MACs and receptive field: wraps in a narrow inspector
    layout->addWidget(m_shapeLabel);
    m_issuesLabel = errorLabel(content);
    layout->addWidget(m_issuesLabel);

    m_nodeForm = nullptr;
    if (block && !block->params.isEmpty()) {
        layout->addWidget(sectionLabel(tr("Parameters"), content));
        m_nodeForm = new ParamForm(block->params, content);
        m_nodeForm->setBaseDir(m_document->preset().baseDir());
        layout->addWidget(m_nodeForm);
        // A page on its way out (deleted later) may still report an edit as it loses focus: ignore it.
        ParamForm *form = m_nodeForm;
        connect(form, &ParamForm::valueEdited, this,
                [this, form](const QString &param, const QJsonValue &value, int session) {
                    if (form == m_nodeForm)
                        m_document->setParam(m_nodeId, param, value, session);
                });
        connect(form, &ParamForm::resetRequested, this, [this, form](const QString &param) {
            if (form == m_nodeForm)
                m_document->resetParam(m_nodeId, param);
        });
        connect(form, &ParamForm::sweepRequested, this, [this, form](const QString &param) {
            if (form == m_nodeForm)
                Q_EMIT sweepRequested(m_nodeId + QLatin1Char('.') + param);
        });
    } else if (block) {
        layout->addWidget(mutedLabel(tr("This block has no parameters."), content));
    }
    if (isCompositeBlock(m_document->preset(), node->block))
        layout->addWidget(buildInnerParams(node->block, content));
    if (block && block->category == BlockCategory::Dataset) {
        layout->addWidget(sectionLabel(tr("Data"), content));
        layout->addWidget(new DatasetPreview(m_document, id, content));
    } else if (block && block->takesDataStatistics) {
        layout->addWidget(new NormalizeFromData(m_document, id, content));
    } else if (block && block->category == BlockCategory::Optimizer) {
        auto *find = new QPushButton(tr("Find learning rate…"), content);
        find->setObjectName(QStringLiteral("findLearningRate"));
        find->setToolTip(tr("Train a fresh copy of the model for a few steps while the rate grows, and show the loss against it "
                            "with two suggested rates; nothing changes until you choose one"));
        connect(find, &QPushButton::clicked, this, [this] { Q_EMIT findLearningRateRequested(m_nodeId); });
        layout->addWidget(find, 0, Qt::AlignLeft);
    }
    if (block && block->category == BlockCategory::Transform) {
        layout->addWidget(sectionLabel(tr("Augmentation"), content));
        auto *augmentation = new AugmentationPreviewView(m_document, id, m_augmentationWorker, content);
        layout->addWidget(augmentation);
        augmentation->warmUp();  // the worker starts now, not when the button is pressed (costs nothing elsewhere)
    }
    layout->addStretch(1);

    m_nodePage = scrolling(content, m_stack);
    m_stack->addWidget(m_nodePage);
    refreshNodeValues(id);
    refreshReport();
}

QWidget *InspectorPanel::buildInnerParams(const QString &block, QWidget *parent)
{
    // The inner nodes' parameters, each with Expose: it becomes a parameter of the block, edited above.
    auto *box = new QWidget(parent);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(sectionLabel(tr("Inside %1").arg(block), box));
    layout->addWidget(mutedLabel(tr("Values of the block's definition, shared by every node of it. Expose one to set it "
                                    "per node (and with --set NODE.NAME)."), box));
    auto *grid = new QGridLayout;
    grid->setColumnStretch(1, 1);
    int row = 0;
    for (const InnerParam &param : innerParams(m_document->preset(), block)) {
        auto *name = new QLabel(param.path, box);
        name->setToolTip(param.spec.doc);
        // A bound one takes the exposed parameter's value, shown above. The value gives way in a narrow inspector.
        const QString valueText = param.exposedAs.isEmpty() ? paramValueText(param.value) : QStringLiteral("= %1").arg(param.exposedAs);
        auto *value = new QLabel(valueText, box);
        value->setToolTip(valueText);
        value->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
        value->setMinimumWidth(24);
        auto *expose = new QToolButton(box);
        expose->setObjectName(QStringLiteral("expose:") + param.path);
        expose->setText(tr("Expose"));
        expose->setEnabled(param.exposedAs.isEmpty());
        expose->setToolTip(param.exposedAs.isEmpty() ? tr("Make %1 a parameter of %2").arg(param.path, block)
                                                     : tr("Exposed as the parameter %1").arg(param.exposedAs));
        connect(expose, &QToolButton::clicked, this, [this, block, path = param.path] {
            const QString problem = m_document->exposeInnerParam(block, path);
            if (!problem.isEmpty() && m_idProblem) {
                m_idProblem->setText(problem);
                m_idProblem->setVisible(true);
            }
        });
        grid->addWidget(name, row, 0);
        grid->addWidget(value, row, 1);
        grid->addWidget(expose, row, 2);
        ++row;
    }
    layout->addLayout(grid);
    return box;
}

void InspectorPanel::commitId()
{
    if (!m_idEdit || m_idEdit->text() == m_nodeId)
        return;
    const QString problem = m_document->renameNode(m_nodeId, m_idEdit->text());
    m_idProblem->setText(problem);
    m_idProblem->setVisible(!problem.isEmpty());
}

QString InspectorPanel::idProblem() const
{
    return m_idProblem && m_idProblem->isVisible() ? m_idProblem->text() : QString();
}

void InspectorPanel::nodeRenamed(const QString &oldId, const QString &newId)
{
    if (oldId != m_nodeId)
        return;
    m_nodeId = newId;
    if (m_idEdit && m_idEdit->text() != newId) {
        const QSignalBlocker blocker(m_idEdit);
        m_idEdit->setText(newId);
    }
    m_idProblem->hide();
}

void InspectorPanel::refreshNodeValues(const QString &id)
{
    if (id != m_nodeId || !m_nodeForm)
        return;
    if (const Node *node = m_document->graph().node(id))
        m_nodeForm->setValues(node->params);
}

} // namespace ty
