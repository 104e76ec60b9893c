#include "inspector_panel.h"

#include "augmentation_worker.h"
#include "inspector_helpers.h"

#include "common/canvas_style.h"
#include "common/collapsible_section.h"
#include "document/pipeline_document.h"
#include "icons/icon_library.h"
#include "param_editor.h"
#include "param_form.h"
#include "stages_editor.h"

#include "block_registry.h"
#include "cost_estimate.h"
#include "memory_estimate.h"
#include "training_settings.h"

#include <QEvent>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QListWidget>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace ty {

using namespace inspector;

InspectorPanel::InspectorPanel(PipelineDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_stack(new QStackedWidget(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);
    m_stack->addWidget(scrolling(buildTrainingPage(), m_stack));
    m_stack->addWidget(buildMultiPage());

    connect(document, &PipelineDocument::selectionChanged, this, &InspectorPanel::showSelection);
    connect(document, &PipelineDocument::documentReset, this, [this] {
        m_nodeId.clear();
        refreshTraining();
        showSelection();
    });
    connect(document, &PipelineDocument::nodeParamsChanged, this, &InspectorPanel::refreshNodeValues);
    connect(document, &PipelineDocument::nodeRenamed, this, &InspectorPanel::nodeRenamed);
    connect(document, &PipelineDocument::trainingChanged, this, &InspectorPanel::refreshTraining);
    connect(document, &PipelineDocument::presetInfoChanged, this, &InspectorPanel::refreshTraining);
    connect(document, &PipelineDocument::fileNameChanged, this, [this] {
        if (m_nodeForm)
            m_nodeForm->setBaseDir(m_document->preset().baseDir());
    });
    connect(document, &PipelineDocument::reportChanged, this, &InspectorPanel::refreshReport);
    connect(document, &PipelineDocument::blocksChanged, this, [this] {
        m_nodeId.clear();  // a composite's parameters may have changed: build the page anew
        showSelection();
    });
    refreshTraining();
    showSelection();
}

void InspectorPanel::setWorkerPath(const QString &path)
{
    if (path == m_workerPath && m_augmentationWorker)
        return;
    m_workerPath = path;
    delete m_augmentationWorker;  // the views hold it by QPointer
    m_augmentationWorker = new AugmentationWorker(path, this);
    if (m_nodePage) {  // a shown node's page holds the old worker: built anew (a transform node's warms the new one)
        m_nodeId.clear();
        showSelection();
    }
}

QWidget *InspectorPanel::buildTrainingPage()
{
    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(8, 4, 8, 8);
    layout->addWidget(sectionLabel(tr("Preset"), page));
    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_nameEdit = new QLineEdit(page);
    m_nameEdit->setPlaceholderText(tr("Untitled"));
    form->addRow(tr("Name"), m_nameEdit);
    m_descriptionEdit = new QPlainTextEdit(page);
    m_descriptionEdit->setPlaceholderText(tr("What this experiment is about"));
    m_descriptionEdit->setFixedHeight(m_descriptionEdit->fontMetrics().lineSpacing() * 4 + 12);
    m_descriptionEdit->installEventFilter(this);
    form->addRow(tr("Description"), m_descriptionEdit);
    m_hypothesisEdit = new QLineEdit(page);
    m_hypothesisEdit->setPlaceholderText(tr("What this experiment should show"));
    m_hypothesisEdit->setToolTip(tr("Recorded with each run of this preset and shown with it in the run browser"));
    form->addRow(tr("Hypothesis"), m_hypothesisEdit);
    layout->addLayout(form);
    m_summary = mutedLabel(QString(), page);
    layout->addWidget(m_summary);
    m_trainingForm = new ParamForm(trainingSpecs(), trainingGroups(), QStringLiteral("inspector/open/"), page);
    layout->addWidget(m_trainingForm);
    m_stages = new StagesEditor(m_document);
    m_stagesSection = new CollapsibleSection(tr("Stages"), m_stages, true, QStringLiteral("inspector/open/stages"), page);
    layout->addWidget(m_stagesSection);
    layout->addStretch(1);
    layout->addWidget(mutedLabel(tr("Select a node to edit its parameters."), page));

    connect(m_nameEdit, &QLineEdit::textEdited, this, &InspectorPanel::presetInfoEdited);
    connect(m_nameEdit, &QLineEdit::editingFinished, this, [this] { m_infoSession = 0; });
    connect(m_hypothesisEdit, &QLineEdit::textEdited, this, &InspectorPanel::presetInfoEdited);
    connect(m_hypothesisEdit, &QLineEdit::editingFinished, this, [this] { m_infoSession = 0; });
    connect(m_descriptionEdit, &QPlainTextEdit::textChanged, this, &InspectorPanel::presetInfoEdited);
    connect(m_trainingForm, &ParamForm::valueEdited, this,
            [this](const QString &key, const QJsonValue &value, int session) {
                m_document->setTrainingValue(key, value, session);
            });
    connect(m_trainingForm, &ParamForm::resetRequested, this,
            [this](const QString &key) { m_document->resetTrainingValue(key); });
    connect(m_trainingForm, &ParamForm::sweepRequested, this,
            [this](const QString &key) { Q_EMIT sweepRequested(QStringLiteral("training.") + key); });
    return page;
}

// The training settings by what a user changes together; the everyday ones open, the rest folded.
QList<ParamGroup> InspectorPanel::trainingGroups()
{
    auto names = [](std::initializer_list<const char *> keys) {
        QStringList out;
        for (const char *key : keys)
            out << QString::fromLatin1(key);
        return out;
    };
    return {
        {tr("Training"), names({"epochs", "batch_size", "seed", "device"}), true},
        {tr("Checkpoints and early stopping"),
         names({"checkpoint_every", "checkpoint_keep", "best_metric", "best_mode", "early_stop_metric", "early_stop_mode",
                "early_stop_patience"}),
         false},
        {tr("Gradients and precision"), names({"accumulate_steps", "clip_grad_norm", "clip_grad_value", "mixed_precision"}),
         false},
        {tr("Speed and reproducibility"),
         names({"eval_batch_size", "threads", "streaming", "deterministic", "profile_steps"}), false},
        {tr("Logging"), names({"log_every", "tensorboard_dir"}), false},
        {tr("Distributed"), names({"dist_backend", "dist_timeout", "sync_batch_norm"}), false},
    };
}

QWidget *InspectorPanel::buildMultiPage()
{
    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(8, 8, 8, 8);
    m_multiLabel = new QLabel(page);
    m_multiLabel->setWordWrap(true);
    layout->addWidget(m_multiLabel);
    layout->addWidget(mutedLabel(tr("Select one node to edit its parameters. Arrow keys move the selection; "
                                    "Delete removes it; Ctrl+C copies it."), page));
    layout->addStretch(1);
    return page;
}

bool InspectorPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_descriptionEdit && event->type() == QEvent::FocusOut)
        m_infoSession = 0;  // the next edit is a new undo step
    return QWidget::eventFilter(watched, event);
}

void InspectorPanel::presetInfoEdited()
{
    const PresetInfo info{m_nameEdit->text(), m_descriptionEdit->toPlainText(), m_hypothesisEdit->text()};
    if (info == PresetInfo{m_document->preset().name, m_document->preset().description, m_document->preset().hypothesis})
        return;
    if (m_infoSession == 0)
        m_infoSession = nextEditSession();
    m_document->setPresetInfo(info, m_infoSession);
}

void InspectorPanel::showSelection()
{
    const QStringList ids = m_document->selectedNodes();
    if (ids.size() == 1 && m_document->graph().node(ids.first())) {
        const Node *node = m_document->graph().node(ids.first());
        if (!m_nodePage || m_nodeId != node->id || m_nodeBlock != node->block)
            buildNodePage(node->id);
        m_stack->setCurrentWidget(m_nodePage);
        return;
    }
    m_nodeId.clear();
    m_nodeForm = nullptr;
    if (m_nodePage)
        m_nodePage->deleteLater();
    m_nodePage = nullptr;
    if (ids.isEmpty()) {
        m_stack->setCurrentIndex(0);
    } else {
        m_multiLabel->setText(tr("<b>%1 selected</b><br>%2")
                                  .arg(style::counted(ids.size(), tr("node"), tr("nodes")),
                                       ids.join(QStringLiteral(", ")).toHtmlEscaped()));
        m_stack->setCurrentIndex(1);
    }
}

void InspectorPanel::refreshTraining()
{
    const Preset &preset = m_document->preset();
    if (m_nameEdit->text() != preset.name) {
        const QSignalBlocker blocker(m_nameEdit);
        m_nameEdit->setText(preset.name);
    }
    if (m_hypothesisEdit->text() != preset.hypothesis) {
        const QSignalBlocker blocker(m_hypothesisEdit);
        m_hypothesisEdit->setText(preset.hypothesis);
    }
    if (m_descriptionEdit->toPlainText() != preset.description) {
        const QSignalBlocker blocker(m_descriptionEdit);
        m_descriptionEdit->setPlainText(preset.description);
    }
    m_trainingForm->setValues(preset.training);
    // With stages, each stage has its own epochs.
    if (ParamEditor *epochs = m_trainingForm->editor(QStringLiteral("epochs"))) {
        const bool staged = preset.training.contains(QStringLiteral("stages"));
        epochs->setEnabled(!staged);
        epochs->setToolTip(staged ? tr("Each training stage has its own epochs (Stages, below)") : QString());
    }
}

void InspectorPanel::refreshReport()
{
    // "cuda" is greyed out once the training engine is known to have no CUDA device here.
    if (m_document->cudaAvailable() == false)
        if (ParamEditor *device = m_trainingForm->editor(QStringLiteral("device")))
            device->setChoiceUnavailable(QStringLiteral("cuda"), tr("The training engine (LibTorch) has no CUDA device here"));
    const ShapeReport &report = m_document->report();
    QString summary = tr("%1 · %2").arg(style::counted(m_document->graph().nodes.size(), tr("node"), tr("nodes")),
                                        style::counted(report.totalParams, tr("trainable parameter"),
                                                       tr("trainable parameters")));
    if (report.memory.known)
        summary += tr(" · about %1 to train").arg(byteSizeText(report.memory.total()));
    if (report.cost.known)
        summary += tr(" · %1 MACs a sample").arg(macCountText(report.cost.forwardMacs));
    m_summary->setText(summary);
    QStringList summaryTips;
    if (report.memory.known)
        summaryTips << tr("The run needs about %1 on its device.").arg(memorySummary(report.memory));
    if (report.cost.known)
        summaryTips << tr("It computes %1 multiply-accumulates (MACs; 1 MAC = 2 FLOPs) a sample forward, %2 a training step "
                          "(3 × forward × a batch of %3).")
                           .arg(style::groupedCount(report.cost.forwardMacs), style::groupedCount(report.cost.trainingStepMacs))
                           .arg(report.cost.batchSize);
    m_summary->setToolTip(summaryTips.join(QLatin1Char(' ')));
    QHash<QString, QString> trainingIssues;
    for (const Issue &issue : report.issues)
        if (issue.node.isEmpty() && issue.param.startsWith(QStringLiteral("training.")))
            trainingIssues.insert(issue.param.mid(9), issue.message);
    m_trainingForm->setIssues(trainingIssues);

    if (m_nodeId.isEmpty() || !m_shapeLabel)
        return;
    const NodeShape shape = report.nodes.value(m_nodeId);
    QStringList facts;
    if (shape.known)
        facts << tr("Output %1").arg(shapeToText(shape.outputShape));
    if (shape.paramCount > 0)
        facts << tr("%1 parameters").arg(style::groupedCount(shape.paramCount));
    if (shape.memory.total() > 0)
        facts << tr("%1 while training").arg(byteSizeText(shape.memory.total()));
    if (shape.cost.known)
        facts << tr("%1 MACs a sample, %2 a training step").arg(macCountText(shape.cost.forwardMacs), macCountText(shape.cost.trainingStepMacs));
    if (shape.cost.window && shape.cost.receptiveField.known())
        facts << tr("receptive field %1").arg(receptiveFieldText(shape.cost.receptiveField));
    m_shapeLabel->setText(facts.join(QStringLiteral("  ·  ")));
    m_shapeLabel->setVisible(!facts.isEmpty());

    QStringList problems;
    QHash<QString, QString> paramIssues;
    for (const Issue &issue : m_document->issuesOf(m_nodeId)) {
        if (m_nodeForm && m_nodeForm->editor(issue.param))
            paramIssues.insert(issue.param, issue.message);
        else
            problems << QStringLiteral("%1 %2").arg(issue.severity == Severity::Error ? QStringLiteral("●")
                                                                                      : QStringLiteral("▲"),
                                                    issue.message);
    }
    m_issuesLabel->setText(problems.join(QLatin1Char('\n')));
    m_issuesLabel->setVisible(!problems.isEmpty());
    if (m_nodeForm)
        m_nodeForm->setIssues(paramIssues);
}

void InspectorPanel::focusParam(const QString &name)
{
    static const QRegularExpression stageField(QStringLiteral("^training\\.stages\\[(\\d+)\\]"));
    if (const QRegularExpressionMatch stage = stageField.match(name); stage.hasMatch()) {
        m_stagesSection->setOpen(true);
        m_stages->selectStage(stage.captured(1).toInt());
        m_stages->stageList()->setFocus(Qt::OtherFocusReason);
        return;
    }
    ParamForm *form = name.startsWith(QStringLiteral("training.")) ? m_trainingForm : m_nodeForm;
    const QString key = name.startsWith(QStringLiteral("training.")) ? name.mid(9) : name;
    if (form && form->editor(key)) {
        form->reveal(key);
        form->editor(key)->input()->setFocus(Qt::OtherFocusReason);
    }
}

} // namespace ty
