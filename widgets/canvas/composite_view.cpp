#include "composite_view.h"

#include "canvas_view.h"
#include "document/document_commands.h"
#include "document/pipeline_document.h"
#include "pipeline_scene.h"

#include "composite_blocks.h"
#include "preset_sections.h"
#include "preset_format.h"
#include "preset_inspection.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStackedWidget>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

namespace ty {

struct CompositeView::Level {
    QString nodeId;   // in the level above
    QString block;    // the composite's name
    QString path;     // in the expanded pipeline: "stage2", "stage2/conv1", "body/0" for a repeated one
    std::unique_ptr<PipelineDocument> document;
    std::unique_ptr<PipelineScene> scene;
    CanvasView *view = nullptr;  // owned by the stack
};

namespace {

// The pipeline's report as seen from inside `path`: its inner nodes' shapes under their own ids, the issues
// inside it, and the composite's parameter count as the total.
ShapeReport innerReport(const ShapeReport &whole, const QString &path)
{
    ShapeReport out;
    const QString prefix = path + QLatin1Char('/');
    for (auto it = whole.nodes.constBegin(); it != whole.nodes.constEnd(); ++it)
        if (it.key().startsWith(prefix))
            out.nodes.insert(it.key().mid(prefix.size()), it.value());
    for (Issue issue : whole.issues)
        if (issue.node.startsWith(prefix)) {
            issue.node = issue.node.mid(prefix.size());
            out.issues.append(issue);
        } else if (issue.node == path || (issue.node.isEmpty() && issue.param.startsWith(QStringLiteral("blocks.")))) {
            issue.node.clear();  // the composite's own, or its definition's
            out.issues.append(issue);
        }
    out.totalParams = whole.nodes.value(path).paramCount;
    out.memory = whole.memory;
    return out;
}

// `blocks` with the definition of `block` holding `graph` as its nodes and edges.
QJsonObject withGraph(QJsonObject blocks, const QString &block, const PipelineGraph &graph)
{
    QJsonObject definition = blocks.value(block).toObject();
    definition.insert(QStringLiteral("nodes"), nodesToJson(graph));
    definition.insert(QStringLiteral("edges"), edgesToJson(graph));
    blocks.insert(block, definition);
    return blocks;
}

} // namespace

CompositeView::CompositeView(PipelineDocument *document, CanvasView *pipelineView, QWidget *parent)
    : QWidget(parent), m_document(document), m_pipelineView(pipelineView), m_breadcrumb(new QWidget(this)),
      m_crumbs(new QHBoxLayout(m_breadcrumb)), m_stack(new QStackedWidget(this))
{
    m_crumbs->setContentsMargins(6, 2, 6, 2);
    m_crumbs->setSpacing(2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_breadcrumb);
    layout->addWidget(m_stack, 1);
    m_stack->addWidget(pipelineView);
    m_breadcrumb->hide();
    connect(document, &PipelineDocument::documentReset, this, [this] {
        // Another preset: the opened levels belong to the old one.
        while (!m_levels.empty()) {
            m_stack->removeWidget(m_levels.back()->view);
            delete m_levels.back()->view;
            m_levels.pop_back();
        }
        m_stack->setCurrentWidget(m_pipelineView);
        refreshBreadcrumb();
        Q_EMIT levelChanged();
    });
}

CompositeView::~CompositeView()
{
    for (const auto &level : m_levels)
        delete level->view;  // before its scene and document
}

PipelineDocument *CompositeView::currentDocument() const
{
    return m_levels.empty() ? m_document : m_levels.back()->document.get();
}

CanvasView *CompositeView::currentView() const
{
    return m_levels.empty() ? m_pipelineView : m_levels.back()->view;
}

QString CompositeView::path() const
{
    return m_levels.empty() ? QString() : m_levels.back()->path;
}

bool CompositeView::open(const QString &nodeId)
{
    PipelineDocument *above = currentDocument();
    const Node *node = above->graph().node(nodeId);
    if (!node || !isCompositeBlock(above->preset(), node->block))
        return false;
    if (!m_levels.empty())
        commit(*m_levels.back());  // the pipeline sees this level's edits before the next one is inspected
    const Result<CompositeDefinition> definition = compositeDefinition(m_document->preset(), node->block);
    if (!definition)
        return false;

    auto level = std::make_unique<Level>();
    level->nodeId = nodeId;
    level->block = node->block;
    const QString base = m_levels.empty() ? QString() : m_levels.back()->path + QLatin1Char('/');
    level->path = base + nodeId + (node->repeat > 1 ? QStringLiteral("/0") : QString());
    Preset inner;
    inner.name = node->block;
    inner.graph = definition.value().graph;
    inner.blocks = m_document->preset().blocks;
    inner.sections = m_document->preset().sections;  // the same blocks: their parse too
    inner.sourcePath = m_document->preset().sourcePath;
    level->document = std::make_unique<PipelineDocument>();
    level->document->setBlockLibraryFolder(m_document->blockLibraryFolder());
    // Inspected as part of the pipeline: the pipeline with this block's definition holding the level's graph.
    level->document->setInspection([root = m_document, block = node->block, path = level->path](const Preset &graph) {
        Preset whole = root->preset();  // copied here, on the GUI thread; the job runs on the validation thread
        whole.blocks = withGraph(graph.blocks, block, graph.graph);
        return PipelineDocument::InspectionJob([whole, path] { return innerReport(inspectPresetShapes(whole), path); });
    });
    level->document->setPreset(inner);
    level->scene = std::make_unique<PipelineScene>(level->document.get());
    level->view = new CanvasView(level->scene.get(), m_stack);
    connect(level->scene.get(), &PipelineScene::nodeDoubleClicked, this, &CompositeView::open);
    m_stack->addWidget(level->view);
    m_stack->setCurrentWidget(level->view);
    level->document->validateNow();
    m_levels.push_back(std::move(level));
    refreshBreadcrumb();
    Q_EMIT levelChanged();
    m_levels.back()->view->fitAll();
    return true;
}

void CompositeView::commit(Level &level)
{
    PipelineDocument &inner = *level.document;
    if (inner.undoStack()->isClean())
        return;
    const QJsonObject blocks = withGraph(m_document->preset().blocks, level.block, inner.graph());
    if (blocks != m_document->preset().blocks)
        m_document->undoStack()->push(new SetBlocksCommand(m_document, blocks, tr("Edit block %1").arg(level.block)));
    inner.undoStack()->setClean();
}

void CompositeView::backTo(int target)
{
    target = std::max(0, target);
    while (int(m_levels.size()) > target) {
        commit(*m_levels.back());
        m_stack->removeWidget(m_levels.back()->view);
        delete m_levels.back()->view;
        m_levels.pop_back();
    }
    m_stack->setCurrentWidget(currentView());
    if (!m_levels.empty()) {  // blocks it shows may have changed below it
        PipelineDocument *doc = m_levels.back()->document.get();
        if (doc->preset().blocks != m_document->preset().blocks)
            doc->undoStack()->push(new SetBlocksCommand(doc, m_document->preset().blocks, tr("Blocks edited inside")));
        doc->validateNow();
    }
    refreshBreadcrumb();
    Q_EMIT levelChanged();
}

void CompositeView::refreshBreadcrumb()
{
    while (QLayoutItem *item = m_crumbs->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_breadcrumb->setVisible(!m_levels.empty());
    if (m_levels.empty())
        return;
    auto crumb = [this](const QString &text, int level, bool current) {
        auto *button = new QToolButton(m_breadcrumb);
        button->setText(text);
        button->setAutoRaise(true);
        button->setObjectName(QStringLiteral("crumb%1").arg(level));
        button->setEnabled(!current);
        button->setToolTip(current ? tr("Shown") : tr("Back to %1").arg(text));
        connect(button, &QToolButton::clicked, this, [this, level] { backTo(level); });
        m_crumbs->addWidget(button);
    };
    crumb(tr("Pipeline"), 0, false);
    for (int i = 0; i < int(m_levels.size()); ++i) {
        m_crumbs->addWidget(new QLabel(QStringLiteral("›"), m_breadcrumb));
        crumb(QStringLiteral("%1 (%2)").arg(m_levels.at(i)->nodeId, m_levels.at(i)->block), i + 1, i + 1 == int(m_levels.size()));
    }
    m_crumbs->addStretch(1);
    m_crumbs->addWidget(new QLabel(tr("Edits here change the block %1 wherever it is used").arg(m_levels.back()->block), m_breadcrumb));
}

} // namespace ty
