#pragma once
// The document edited by the desktop app: a preset (graph, name, description, training settings), the file it
// lives in, its undo stack, the selected nodes and the latest validation report.
//
// Views read the state through the const accessors and change it only through the edit functions, each of
// which pushes one small undo command (document_commands.h); the commands alone change the preset, through
// the private mutators. Every change is announced by a fine-grained signal keyed by node id, and schedules
// one re-validation (inspectPresetShapes: the checks `trainyard-cli run` makes before training, data files and
// splits included) on the next event-loop turn, so a burst of edits validates once. That validation runs on a
// worker thread, on a copy of the preset, so reading a data set's files never stalls typing; while one runs,
// further edits start one more when it ends, and a result older than the document is dropped.
//
// Ownership: owns its QUndoStack, validation timer and validation thread. Thread affinity: the GUI thread; only
// the inspection jobs (self-contained copies) run on the validation thread.

#include "auto_layout.h"
#include "block_descriptor.h"
#include "error.h"
#include "preset.h"
#include "shape_types.h"

#include <QHash>
#include <QJsonValue>
#include <QObject>
#include <QPointF>
#include <QSizeF>
#include <QStringList>

class QThreadPool;

namespace ty {
// The preset's texts that are not the pipeline: edited together in the inspector, one undo step per field typed in.
struct PresetInfo {
    QString name, description, hypothesis;
    bool operator==(const PresetInfo &o) const { return name == o.name && description == o.description && hypothesis == o.hypothesis; }
};
} // namespace ty

#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QTimer;
class QUndoStack;

namespace ty {

class DocumentCommand;

// How a move came about: drags are one undo step each, consecutive keyboard nudges of the same nodes merge.
enum class MoveKind { Drag, Nudge, Arrange };

class PipelineDocument : public QObject {
    Q_OBJECT
public:
    explicit PipelineDocument(QObject *parent = nullptr);
    ~PipelineDocument() override;

    // --- State
    const Preset &preset() const { return m_preset; }
    const PipelineGraph &graph() const { return m_preset.graph; }
    QUndoStack *undoStack() const { return m_undoStack; }
    QString fileName() const { return m_preset.sourcePath; }  // empty while untitled
    QString displayName() const;                              // file name without folder, or "Untitled"
    // The block of type `type`: a built-in one, or a composite of the preset's `blocks` section. The pointer
    // stays valid for the document's life.
    const BlockDescriptor *block(const QString &type) const;
    bool isModified() const;

    // --- Whole-document operations: they replace everything and clear the undo stack
    void newDocument();
    void setPreset(const Preset &preset);
    // As setPreset, for a new document never saved (a preset made to fine-tune a run): untitled and modified, so
    // closing or opening another asks before losing it.
    void setUnsavedPreset(const Preset &preset);
    Status load(const QString &path);  // leaves the document unchanged on failure
    Status save(const QString &path);  // on success the file name becomes `path` and the stack is clean

    // --- Selection (node ids, in selection order)
    const QStringList &selectedNodes() const { return m_selection; }
    void setSelectedNodes(const QStringList &ids);

    // --- Validation
    const ShapeReport &report() const { return m_report; }
    Issues issuesOf(const QString &nodeId) const;
    bool validationPending() const;  // an edit not yet validated, or a validation still running
    void validateNow();  // validates at once on this thread and publishes the report (also a benchmark hook)
    void revalidate() { scheduleValidation(); }  // on the validation thread, as after an edit (what it reads changed)
    // One validation, with everything it reads copied in, so that it can run on the validation thread.
    using InspectionJob = std::function<ShapeReport()>;
    // How the job is made from the preset, on the GUI thread: inspectPresetShapes of a copy unless set (a
    // composite's inner graph, shown on its own, is inspected as part of the whole pipeline; the app adds the
    // run database's checks of training.init_from).
    void setInspection(std::function<InspectionJob(const Preset &)> prepare) { m_prepareInspection = std::move(prepare); }
    // Whether the training engine can use CUDA here (DeviceProbe); a preset asking for CUDA is warned about
    // once this is known to be false. Unknown (nullopt) until told: the app never loads LibTorch itself.
    void setCudaAvailable(std::optional<bool> available);
    std::optional<bool> cudaAvailable() const { return m_cudaAvailable; }
    int validationCount() const { return m_validationCount; }

    // --- Edits: each pushes one undo command (or nothing when it would change nothing)
    // Adds a node of `blockType` with a fresh id (conv, conv2, ...); returns the id, empty for unknown blocks.
    // A composite of the user's block library (blockLibraryFolder()) that the preset lacks is copied into the
    // preset's `blocks` first, with the composites it uses, in the same undo step.
    QString addNode(const QString &blockType, const QPointF &pos);
    // Where the user's composite blocks are (by default ~/.local/share/trainyard/blocks).
    QString blockLibraryFolder() const { return m_libraryFolder; }
    void setBlockLibraryFolder(const QString &folder) { m_libraryFolder = folder; }
    // Adds nodes and edges whose ids are already fresh (see graph_fragment.h); returns the new ids.
    QStringList addNodes(const PipelineGraph &fragment, const QString &text);
    // Removes nodes (with every edge touching them) and edges.
    bool removeItems(const QStringList &nodeIds, const QList<Edge> &edges, const QString &text = QString());
    // Groups the nodes into a new composite block (its ports from the edges crossing the group) and puts one
    // node of it in their place; ungroups a composite node into its inner nodes. One undo step each. Return the
    // reason when refused (a loss in the group, no edge into it, a node that repeats), else empty.
    QString groupIntoBlock(const QStringList &nodeIds);
    QString ungroupBlock(const QString &nodeId);
    // Exposes the inner parameter `path` ("NODE.PARAM") of composite `block` as a parameter of the block (one undo
    // step); returns the reason when refused.
    QString exposeInnerParam(const QString &block, const QString &path);
    bool moveNodes(const QHash<QString, QPointF> &positions, MoveKind kind);
    // Why the connection is refused (connectionProblem), or empty when it was made.
    QString connectPorts(const Endpoint &from, const Endpoint &to);
    // Why the new id is refused, or empty when the node was renamed (its edges follow).
    QString renameNode(const QString &oldId, const QString &newId);
    QString renameProblem(const QString &oldId, const QString &newId) const;
    // Why the value is refused (checkParamValue), or empty when it was set.
    QString setParam(const QString &nodeId, const QString &param, const QJsonValue &value, int session = 0);
    bool resetParam(const QString &nodeId, const QString &param);
    QString setTrainingValue(const QString &key, const QJsonValue &value, int session = 0);
    bool resetTrainingValue(const QString &key);
    bool setPresetInfo(const QString &name, const QString &description, int session = 0);
    bool setPresetInfo(const PresetInfo &info, int session = 0);  // with the hypothesis
    // Replaces the whole training section as one undo step called `text`: the stages editor, which changes the
    // stages and the epochs they make unused together (training_stage_edits.h). Consecutive calls with the same
    // `mergeKey` and non-zero session merge (typing in one stage's field).
    bool setTrainingSection(const QJsonObject &training, const QString &text, const QString &mergeKey = QString(),
                            int session = 0);

    // --- The training stage the inspector shows: the canvas marks the nodes frozen in it. View state (like the
    // zoom): not an edit, not undone, not saved. -1 (none) when the preset has no stages.
    void setShownStage(int index);
    int shownStage() const { return m_shownStage; }
    QString shownStageName() const;
    QStringList shownStageFrozenNodes() const;  // in graph order; empty when no stage is shown
    // Lays the graph out left to right by depth (auto_layout.h), as one undo step. `nodeSizes` as drawn.
    bool autoArrange(const QHash<QString, QSizeF> &nodeSizes = {}, const LayoutOptions &options = {});

Q_SIGNALS:
    void documentReset();  // everything was replaced: rebuild every view
    void nodeAdded(const QString &id);
    void nodeRemoved(const QString &id);
    void nodeMoved(const QString &id);
    void nodeParamsChanged(const QString &id);
    void nodeRenamed(const QString &oldId, const QString &newId);
    void edgeAdded(const ty::Edge &edge);
    void edgeRemoved(const ty::Edge &edge);
    void trainingChanged();
    void presetInfoChanged();
    void selectionChanged();
    void reportChanged();
    void fileNameChanged();
    void modifiedChanged(bool modified);
    void shownStageChanged(int index);
    void blocksChanged();  // the composite block definitions changed

private:
    friend class DocumentCommand;
    // Mutators, for undo commands only. Each emits its signal and schedules validation when it matters.
    void insertNode(int index, const Node &node);
    void removeNodeAt(int index);
    void insertEdge(int index, const Edge &edge);
    void removeEdgeAt(int index);
    void setNodePos(const QString &id, const QPointF &pos);
    void setNodeParams(const QString &id, const QJsonObject &params);
    void setBlocks(const QJsonObject &blocks);
    void setNodeId(const QString &oldId, const QString &newId);
    void setTraining(const QJsonObject &training);
    void setPresetInfoFields(const PresetInfo &info);

    void scheduleValidation();
    void startValidation();  // on the validation thread
    InspectionJob inspectionJob() const;
    void publish(ShapeReport report);
    void resetTo(const Preset &preset);

    void refreshCompositeBlocks();

    Preset m_preset;
    QHash<QString, const BlockDescriptor *> m_composites;  // of m_preset.blocks
    std::vector<std::unique_ptr<BlockDescriptor>> m_compositeStore;  // every one made, so pointers stay valid
    QHash<QByteArray, const BlockDescriptor *> m_descriptorsMade;     // by name and definition JSON
    QString m_libraryFolder;
    std::function<InspectionJob(const Preset &)> m_prepareInspection;
    std::unique_ptr<QThreadPool> m_validationThread;
    int m_edition = 0;              // bumped by every validation started; a result of an older one is dropped
    bool m_validating = false;      // a job is on the validation thread
    bool m_validateAgain = false;   // edits arrived meanwhile
    QStringList m_selection;
    ShapeReport m_report;
    std::optional<bool> m_cudaAvailable;
    QUndoStack *m_undoStack = nullptr;
    QTimer *m_validationTimer = nullptr;
    int m_validationCount = 0;
    int m_shownStage = -1;
};

// A fresh edit session: consecutive value edits with the same non-zero session (typing in one field) merge
// into one undo step. Process-wide counter, GUI thread.
int nextEditSession();

// The id a new node of `block` starts from: data, norm, conv, fc, relu, loss, opt, ...
QString suggestedNodeId(const BlockDescriptor &block);

} // namespace ty

Q_DECLARE_METATYPE(ty::Edge)
