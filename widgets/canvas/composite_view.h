#pragma once
// The design area: the pipeline's canvas, and the inner graph of a composite node opened in its place (double
// click on the node), with a breadcrumb back ("Pipeline > stage2 (residual_down) > conv1 (conv_bn)"). An opened
// level is a document of its own (its nodes, edges and undo steps), inspected as part of the whole pipeline, so it
// shows the shapes and issues the composite has where it is used. Leaving a level writes its graph back into the
// block's definition, one undo step of the pipeline ("Edit block residual_down"); so does opening a deeper one.
// Ownership: owns the opened levels (documents, scenes, views); the pipeline's view is its child. Thread
// affinity: the GUI thread.

#include <QString>
#include <QWidget>

#include <memory>
#include <vector>

class QHBoxLayout;
class QStackedWidget;

namespace ty {

class CanvasView;
class PipelineDocument;
class PipelineScene;

class CompositeView : public QWidget {
    Q_OBJECT
public:
    CompositeView(PipelineDocument *document, CanvasView *pipelineView, QWidget *parent = nullptr);
    ~CompositeView() override;

    // Opens the inner graph of composite node `nodeId` of the level shown; false when it is no composite.
    bool open(const QString &nodeId);
    // Back to `level` (0: the pipeline), writing each level left back into its block.
    void backTo(int level);
    int depth() const { return int(m_levels.size()); }
    PipelineDocument *currentDocument() const;  // the level shown: the pipeline's document at depth 0
    CanvasView *currentView() const;
    QString path() const;  // the opened composite node's path, "stage2/conv1"; empty at the pipeline

Q_SIGNALS:
    void levelChanged();  // another level is shown (the inspector and issues list follow it)

private:
    struct Level;
    void commit(Level &level);
    void refreshBreadcrumb();

    PipelineDocument *m_document;
    CanvasView *m_pipelineView;
    QWidget *m_breadcrumb;
    QHBoxLayout *m_crumbs;
    QStackedWidget *m_stack;
    std::vector<std::unique_ptr<Level>> m_levels;
};

} // namespace ty
