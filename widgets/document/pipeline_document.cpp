// PipelineDocument: state, files, selection, validation, and the mutators that undo commands call.

#include "pipeline_document.h"

#include "composite_blocks.h"
#include "composite_expansion.h"
#include "preset_sections.h"

#include <QJsonDocument>

#include "preset_format.h"
#include "preset_inspection.h"
#include "training_stage_edits.h"
#include "training_stages.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QPromise>
#include <QThreadPool>
#include <QTimer>
#include <QUndoStack>

#include <algorithm>

namespace ty {

PipelineDocument::PipelineDocument(QObject *parent)
    : QObject(parent), m_undoStack(new QUndoStack(this)), m_validationTimer(new QTimer(this))
{
    m_libraryFolder = defaultBlockLibraryFolder();
    m_validationTimer->setSingleShot(true);
    m_validationTimer->setInterval(0);
    connect(m_validationTimer, &QTimer::timeout, this, &PipelineDocument::startValidation);
    m_validationThread = std::make_unique<QThreadPool>();
    m_validationThread->setMaxThreadCount(1);
    connect(m_undoStack, &QUndoStack::cleanChanged, this, [this](bool clean) { Q_EMIT modifiedChanged(!clean); });
    m_preset.name = tr("Untitled");
    scheduleValidation();
}

PipelineDocument::~PipelineDocument()
{
    m_validationThread->waitForDone();  // a job holds only its own copies; its result is dropped
}

QString PipelineDocument::displayName() const
{
    return fileName().isEmpty() ? tr("Untitled") : QFileInfo(fileName()).fileName();
}

bool PipelineDocument::isModified() const
{
    return !m_undoStack->isClean();
}

// --- Whole-document operations

void PipelineDocument::resetTo(const Preset &preset)
{
    const bool wasModified = isModified();
    m_undoStack->clear();
    m_preset = preset;
    trainingSection(m_preset);  // parsed here, once: the views and every validation job share it
    refreshCompositeBlocks();
    m_selection.clear();
    m_shownStage = stage_edits::stagesOf(preset.training).isEmpty() ? -1 : 0;
    m_report = ShapeReport();
    Q_EMIT documentReset();
    Q_EMIT selectionChanged();
    Q_EMIT shownStageChanged(m_shownStage);
    Q_EMIT fileNameChanged();
    if (wasModified)
        Q_EMIT modifiedChanged(false);
    scheduleValidation();
}

void PipelineDocument::newDocument()
{
    Preset preset;
    preset.name = tr("Untitled");
    resetTo(preset);
}

void PipelineDocument::setPreset(const Preset &preset)
{
    resetTo(preset);
}

void PipelineDocument::setUnsavedPreset(const Preset &preset)
{
    Preset untitled = preset;
    untitled.sourcePath.clear();
    resetTo(untitled);
    m_undoStack->resetClean();  // modified with nothing to undo: emits cleanChanged, so modifiedChanged(true)
}

Status PipelineDocument::load(const QString &path)
{
    Result<Preset> loaded = loadPreset(path);
    if (!loaded)
        return loaded.error();
    Preset preset = std::move(loaded).value();
    preset.sourcePath = QFileInfo(path).absoluteFilePath();
    resetTo(preset);
    return Status::success();
}

Status PipelineDocument::save(const QString &path)
{
    const Status saved = savePreset(m_preset, path);
    if (!saved)
        return saved;
    const QString absolute = QFileInfo(path).absoluteFilePath();
    const bool renamed = absolute != m_preset.sourcePath;
    m_preset.sourcePath = absolute;
    m_undoStack->setClean();
    if (renamed) {
        Q_EMIT fileNameChanged();
        scheduleValidation();  // relative data paths now resolve against the new folder
    }
    return Status::success();
}

// --- Selection

void PipelineDocument::setSelectedNodes(const QStringList &ids)
{
    if (ids == m_selection)
        return;
    m_selection = ids;
    Q_EMIT selectionChanged();
}

// --- Validation

const BlockDescriptor *PipelineDocument::block(const QString &type) const
{
    if (const BlockDescriptor *builtin = BlockRegistry::builtin().find(type))
        return builtin;
    return m_composites.value(type, nullptr);
}

void PipelineDocument::setBlocks(const QJsonObject &blocks)
{
    m_preset.blocks = blocks;
    refreshCompositeBlocks();
    Q_EMIT blocksChanged();
    scheduleValidation();
}

void PipelineDocument::refreshCompositeBlocks()
{
    // The section is parsed here, once per version of it: the views and every validation job share the parse.
    const std::shared_ptr<const BlocksSection> section = blocksSection(m_preset);
    m_composites.clear();
    for (auto it = section->definitions.constBegin(); it != section->definitions.constEnd(); ++it) {
        const BlockDescriptor *descriptor = section->registry.find(it.key());
        if (!descriptor || BlockRegistry::builtin().find(it.key()))
            continue;
        // A definition seen before (undo and redo bring the same ones back) keeps its descriptor.
        const QByteArray key = it.key().toUtf8() + '\0' + QJsonDocument(m_preset.blocks.value(it.key()).toObject()).toJson(QJsonDocument::Compact);
        if (const BlockDescriptor *known = m_descriptorsMade.value(key)) {
            m_composites.insert(it.key(), known);
            continue;
        }
        m_compositeStore.push_back(std::make_unique<BlockDescriptor>(*descriptor));
        m_descriptorsMade.insert(key, m_compositeStore.back().get());
        m_composites.insert(it.key(), m_compositeStore.back().get());
    }
}

Issues PipelineDocument::issuesOf(const QString &nodeId) const
{
    Issues out;
    for (const Issue &issue : m_report.issues)
        if (isWithinAny(issue.node, {nodeId}))
            out.append(issue);
    return out;
}

bool PipelineDocument::validationPending() const
{
    return m_validationTimer->isActive() || m_validating;
}

void PipelineDocument::scheduleValidation()
{
    if (!m_validationTimer->isActive())
        m_validationTimer->start();
}

void PipelineDocument::setCudaAvailable(std::optional<bool> available)
{
    if (m_cudaAvailable == available)
        return;
    m_cudaAvailable = available;
    validateNow();
}

PipelineDocument::InspectionJob PipelineDocument::inspectionJob() const
{
    InspectionJob job = m_prepareInspection ? m_prepareInspection(m_preset)
                                            : InspectionJob([preset = m_preset] { return inspectPresetShapes(preset); });
    if (m_cudaAvailable != false)
        return job;
    return [job, wantsCuda = presetWantsCuda(m_preset)] {
        ShapeReport report = job();
        if (wantsCuda)
            report.issues.append(cudaUnavailableIssue());
        return report;
    };
}

void PipelineDocument::validateNow()
{
    m_validationTimer->stop();
    ++m_edition;  // a job still running on the validation thread is older than this
    m_validateAgain = false;
    publish(inspectionJob()());
}

void PipelineDocument::startValidation()
{
    if (m_validating) {
        m_validateAgain = true;
        return;
    }
    m_validating = true;
    m_validateAgain = false;
    const int edition = ++m_edition;
    auto promise = std::make_shared<QPromise<ShapeReport>>();
    auto *watcher = new QFutureWatcher<ShapeReport>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, edition] {
        watcher->deleteLater();
        m_validating = false;
        if (edition == m_edition && watcher->future().resultCount() > 0)
            publish(watcher->future().result());
        if (m_validateAgain)
            scheduleValidation();
    });
    watcher->setFuture(promise->future());
    m_validationThread->start([promise, job = inspectionJob()] {
        promise->start();
        promise->addResult(job());
        promise->finish();
    });
}

void PipelineDocument::publish(ShapeReport report)
{
    m_report = std::move(report);
    ++m_validationCount;
    Q_EMIT reportChanged();
}

// --- Mutators (undo commands only)

void PipelineDocument::insertNode(int index, const Node &node)
{
    m_preset.graph.nodes.insert(index, node);
    Q_EMIT nodeAdded(node.id);
    scheduleValidation();
}

void PipelineDocument::removeNodeAt(int index)
{
    const QString id = m_preset.graph.nodes.takeAt(index).id;
    Q_EMIT nodeRemoved(id);
    scheduleValidation();
}

void PipelineDocument::insertEdge(int index, const Edge &edge)
{
    m_preset.graph.edges.insert(index, edge);
    Q_EMIT edgeAdded(edge);
    scheduleValidation();
}

void PipelineDocument::removeEdgeAt(int index)
{
    const Edge edge = m_preset.graph.edges.takeAt(index);
    Q_EMIT edgeRemoved(edge);
    scheduleValidation();
}

void PipelineDocument::setNodePos(const QString &id, const QPointF &pos)
{
    Node *node = m_preset.graph.node(id);
    if (!node || node->pos == pos)
        return;
    node->pos = pos;
    Q_EMIT nodeMoved(id);  // positions do not affect validation
}

void PipelineDocument::setNodeParams(const QString &id, const QJsonObject &params)
{
    if (Node *node = m_preset.graph.node(id)) {
        node->params = params;
        Q_EMIT nodeParamsChanged(id);
        scheduleValidation();
    }
}

void PipelineDocument::setNodeId(const QString &oldId, const QString &newId)
{
    Node *node = m_preset.graph.node(oldId);
    if (!node)
        return;
    node->id = newId;
    for (Edge &edge : m_preset.graph.edges) {
        if (edge.from.node == oldId)
            edge.from.node = newId;
        if (edge.to.node == oldId)
            edge.to.node = newId;
    }
    for (QString &selected : m_selection)  // silently: the selection still names the same node
        if (selected == oldId)
            selected = newId;
    Q_EMIT nodeRenamed(oldId, newId);
    // Stages and init_from name nodes too: they follow (undo renames back the same way).
    const QJsonObject training = stage_edits::renameNode(m_preset.training, oldId, newId);
    if (training != m_preset.training)
        setTraining(training);
    scheduleValidation();
}

void PipelineDocument::setTraining(const QJsonObject &training)
{
    m_preset.training = training;
    trainingSection(m_preset);  // parsed here, once: the views and every validation job share it
    const int stages = int(stage_edits::stagesOf(training).size());
    m_shownStage = std::min(m_shownStage, stages - 1);  // a removed stage: the one before it is shown
    Q_EMIT trainingChanged();
    Q_EMIT shownStageChanged(m_shownStage);  // the same stage may freeze other nodes now
    scheduleValidation();
}

void PipelineDocument::setShownStage(int index)
{
    const int stages = int(stage_edits::stagesOf(m_preset.training).size());
    m_shownStage = index >= 0 && index < stages ? index : -1;
    Q_EMIT shownStageChanged(m_shownStage);
}

QString PipelineDocument::shownStageName() const
{
    if (m_shownStage < 0)
        return QString();
    const QList<StagePlan> plans = planStages(m_preset);
    return m_shownStage < plans.size() ? plans.at(m_shownStage).name : QString();
}

QStringList PipelineDocument::shownStageFrozenNodes() const
{
    if (m_shownStage < 0)
        return {};
    const QList<StagePlan> plans = planStages(m_preset);
    return m_shownStage < plans.size() ? plans.at(m_shownStage).frozen : QStringList();
}

void PipelineDocument::setPresetInfoFields(const PresetInfo &info)
{
    m_preset.name = info.name;
    m_preset.description = info.description;
    m_preset.hypothesis = info.hypothesis;
    Q_EMIT presetInfoChanged();
}

} // namespace ty
