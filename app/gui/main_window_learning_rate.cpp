// MainWindow: an optimizer node's "Find learning rate…" (the inspector's button). The test runs in a worker process
// on a snapshot of the document, as training does (`trainyard-cli lrfind SNAPSHOT --db DB --json --quiet`); its
// dialog shows the curve, and the rate the user clicks is set on the node through the document, one undo step.

#include "main_window.h"

#include "document/pipeline_document.h"
#include "training/learning_rate_finder_dialog.h"
#include "training/training_panel.h"
#include "training/worker_snapshot.h"

#include "block_descriptor.h"
#include "pipeline_graph.h"

#include <QJsonValue>
#include <QStatusBar>

namespace ty {

LearningRateFinderDialog *MainWindow::findLearningRate(const QString &optimizerNode)
{
    if (!checkTrainable(tr("Cannot find a learning rate")))
        return nullptr;
    if (m_training->databasePath().isEmpty())
        openRunDatabase(preferredRunDatabase());
    const QString dbPath = m_training->databasePath();
    const Result<QString> snapshot = writeWorkerSnapshot(m_document->preset(), dbPath.isEmpty() ? preferredRunDatabase() : dbPath);
    if (!snapshot.ok()) {
        statusBar()->showMessage(tr("Cannot find a learning rate: %1").arg(snapshot.error().toString()), 10000);
        return nullptr;
    }
    const Node *node = m_document->graph().node(optimizerNode);
    const BlockDescriptor *block = node ? m_document->block(node->block) : nullptr;
    const double currentLr = block ? block->effectiveParams(node->params).value(QStringLiteral("lr")).toDouble() : 0.0;
    auto *dialog = new LearningRateFinderDialog(optimizerNode, currentLr, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &LearningRateFinderDialog::rateChosen, this, [this, dialog](const QString &nodeId, double lr) {
        if (!m_document->graph().node(nodeId)) {
            statusBar()->showMessage(tr("The node “%1” is gone: nothing was set").arg(nodeId), 8000);
            return;
        }
        const QString problem = m_document->setParam(nodeId, QStringLiteral("lr"), QJsonValue(lr));
        if (!problem.isEmpty()) {
            statusBar()->showMessage(tr("Cannot set %1.lr: %2").arg(nodeId, problem), 10000);
            return;
        }
        statusBar()->showMessage(tr("Set %1.lr to %2 (Undo reverts it)").arg(nodeId, QString::number(lr, 'g', 3)), 8000);
        dialog->accept();
    });
    dialog->start(m_training->workerPath(), {QStringLiteral("lrfind"), snapshot.value(), QStringLiteral("--db"),
                                             dbPath.isEmpty() ? preferredRunDatabase() : dbPath, QStringLiteral("--json"),
                                             QStringLiteral("--quiet")});
    dialog->show();
    return dialog;
}

} // namespace ty
