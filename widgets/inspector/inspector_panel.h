#pragma once
// The inspector: for one selected node, its block, doc, editable id (a unique identifier), live output shape,
// parameter count and issues, and a form of its parameters; with nothing selected, the preset's name,
// description, training settings in folding sections (the everyday ones open) and training stages
// (StagesEditor); with several nodes selected, a summary.
// Every change goes through the document's edit API (one undo command per change; typing in one field
// merges); the panel follows the document's signals, so undo and redo show up in it.
// Ownership: owns its pages; the document is not owned and must outlive the panel. Thread affinity: GUI.

#include <QPointer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QStackedWidget;

namespace ty {

class AugmentationWorker;
class CollapsibleSection;
class ParamForm;
struct ParamGroup;
class StagesEditor;
class PipelineDocument;

class InspectorPanel : public QWidget {
    Q_OBJECT
public:
    explicit InspectorPanel(PipelineDocument *document, QWidget *parent = nullptr);

    QString shownNode() const { return m_nodeId; }  // empty unless exactly one node is shown
    ParamForm *nodeForm() const { return m_nodeForm; }  // null unless a node is shown
    ParamForm *trainingForm() const { return m_trainingForm; }
    StagesEditor *stagesEditor() const { return m_stages; }
    CollapsibleSection *stagesSection() const { return m_stagesSection; }
    // The training settings' sections: every key of trainingSpecs() belongs to one (tests check this).
    static QList<ParamGroup> trainingGroups();
    QLineEdit *idEditor() const { return m_idEdit; }
    QString idProblem() const;
    QLineEdit *presetNameEditor() const { return m_nameEdit; }
    QPlainTextEdit *descriptionEditor() const { return m_descriptionEdit; }
    QLineEdit *hypothesisEditor() const { return m_hypothesisEdit; }
    // Puts the keyboard focus in a parameter's editor (or a training setting's, for "training.KEY").
    void focusParam(const QString &name);
    // The trainyard-cli that draws a transform node's augmentation preview (augmentation_preview_view.h), kept
    // running between previews by one AugmentationWorker, which the panel owns (null until a path is set). Showing a
    // transform node warms it up (started, the data set loaded, the preset compiled) before any preview is asked for.
    void setWorkerPath(const QString &path);
    QString workerPath() const { return m_workerPath; }
    AugmentationWorker *augmentationWorker() const { return m_augmentationWorker; }

Q_SIGNALS:
    // A parameter's "Sweep This Parameter…": `key` as --set writes it, "conv1.out_channels" or "training.epochs".
    void sweepRequested(const QString &key);
    // An optimizer node's "Find learning rate…" (the window runs the test and offers the rates to set).
    void findLearningRateRequested(const QString &optimizerNode);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget *buildTrainingPage();
    QWidget *buildMultiPage();
    void showSelection();
    QWidget *buildInnerParams(const QString &block, QWidget *parent);
    void buildNodePage(const QString &id);
    void refreshNodeValues(const QString &id);
    void refreshTraining();
    void refreshReport();
    void nodeRenamed(const QString &oldId, const QString &newId);
    void commitId();
    void presetInfoEdited();

    PipelineDocument *m_document;
    QString m_workerPath;
    AugmentationWorker *m_augmentationWorker = nullptr;
    QStackedWidget *m_stack;
    // Training page
    QLineEdit *m_nameEdit = nullptr;
    QPlainTextEdit *m_descriptionEdit = nullptr;
    QLineEdit *m_hypothesisEdit = nullptr;
    QLabel *m_summary = nullptr;
    ParamForm *m_trainingForm = nullptr;
    StagesEditor *m_stages = nullptr;
    CollapsibleSection *m_stagesSection = nullptr;
    int m_infoSession = 0;
    // Multi-selection page
    QLabel *m_multiLabel = nullptr;
    // Node page (rebuilt for each node)
    QPointer<QWidget> m_nodePage;
    QString m_nodeId;
    QString m_nodeBlock;
    QLineEdit *m_idEdit = nullptr;
    QLabel *m_idProblem = nullptr;
    QLabel *m_shapeLabel = nullptr;
    QLabel *m_issuesLabel = nullptr;
    ParamForm *m_nodeForm = nullptr;
};

} // namespace ty
