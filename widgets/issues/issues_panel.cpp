#include "issues_panel.h"

#include "document/pipeline_document.h"
#include "icons/icon_library.h"

#include <QHeaderView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ty {

namespace {
enum Column { SeverityColumn, NodeColumn, MessageColumn };

QString severityIconName(Severity severity)
{
    return severity == Severity::Error     ? QStringLiteral("status-error")
           : severity == Severity::Warning ? QStringLiteral("status-warning")
                                           : QStringLiteral("status-info");
}

struct Counts {
    int errors = 0, warnings = 0, notes = 0;
};

Counts countsOf(const Issues &issues)
{
    Counts counts;
    for (const Issue &issue : issues)
        (issue.severity == Severity::Error ? counts.errors : issue.severity == Severity::Warning ? counts.warnings : counts.notes)++;
    return counts;
}

QString where(const Issue &issue)
{
    QStringList parts;
    if (!issue.port.isEmpty())
        parts << issue.port;
    if (!issue.param.isEmpty())
        parts << issue.param;
    return parts.join(QStringLiteral(", "));
}
} // namespace

IssuesPanel::IssuesPanel(PipelineDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_list(new QTreeWidget(this))
{
    m_list->setColumnCount(3);
    m_list->setHeaderLabels({tr("Severity"), tr("Node"), tr("Message")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setAlternatingRowColors(true);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->header()->setStretchLastSection(true);
    m_list->header()->setSectionResizeMode(SeverityColumn, QHeaderView::ResizeToContents);
    m_list->header()->setSectionResizeMode(NodeColumn, QHeaderView::ResizeToContents);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_list);

    connect(document, &PipelineDocument::reportChanged, this, &IssuesPanel::refresh);
    connect(m_list, &QTreeWidget::itemClicked, this, &IssuesPanel::itemActivated);
    connect(m_list, &QTreeWidget::itemActivated, this, &IssuesPanel::itemActivated);
    refresh();
}

QString IssuesPanel::summary() const
{
    const auto [errors, warnings, notes] = countsOf(m_issues);
    if (m_document->graph().nodes.isEmpty())
        return tr("Empty pipeline");
    if (errors == 0 && warnings == 0 && notes == 0)
        return tr("No issues");
    QStringList parts;
    if (errors > 0)
        parts << (errors == 1 ? tr("1 error") : tr("%1 errors").arg(errors));
    if (warnings > 0)
        parts << (warnings == 1 ? tr("1 warning") : tr("%1 warnings").arg(warnings));
    if (notes > 0)
        parts << (notes == 1 ? tr("1 note") : tr("%1 notes").arg(notes));
    return parts.join(QStringLiteral(", "));
}

void IssuesPanel::refresh()
{
    m_list->clear();
    if (m_document->graph().nodes.isEmpty()) {
        // Nothing built yet (a new document, the start page): a hint instead of "no dataset, no loss, ...".
        m_issues.clear();
        auto *item = new QTreeWidgetItem(m_list);
        item->setText(MessageColumn, tr("An empty pipeline: drag a dataset, layers, a loss and an optimizer from "
                                        "Blocks onto the canvas, or open a preset."));
        item->setFlags(Qt::ItemIsEnabled);
        item->setData(SeverityColumn, Qt::UserRole, -1);
        Q_EMIT summaryChanged(tr("Empty pipeline"), 0, 0, 0);
        return;
    }
    m_issues = m_document->report().issues;
    for (int i = 0; i < m_issues.size(); ++i) {
        const Issue &issue = m_issues.at(i);
        auto *item = new QTreeWidgetItem(m_list);
        item->setIcon(SeverityColumn, icons::statusIcon(severityIconName(issue.severity)));
        item->setText(SeverityColumn, severityName(issue.severity));
        item->setText(NodeColumn, issue.node.isEmpty() ? tr("(pipeline)") : issue.node);
        const QString place = where(issue);
        item->setText(MessageColumn, place.isEmpty() ? issue.message : QStringLiteral("%1: %2").arg(place, issue.message));
        item->setToolTip(MessageColumn, issue.toString());
        item->setData(SeverityColumn, Qt::UserRole, i);
    }
    if (m_issues.isEmpty()) {
        auto *item = new QTreeWidgetItem(m_list);
        item->setIcon(SeverityColumn, icons::statusIcon(QStringLiteral("status-ok")));
        item->setText(SeverityColumn, tr("ok"));
        item->setText(MessageColumn, tr("No issues: every node has a shape and the pipeline can train."));
        item->setFlags(Qt::ItemIsEnabled);
        item->setData(SeverityColumn, Qt::UserRole, -1);
    }
    const Counts counts = countsOf(m_issues);
    Q_EMIT summaryChanged(summary(), counts.errors, counts.warnings, counts.notes);
}

void IssuesPanel::itemActivated(QTreeWidgetItem *item)
{
    const int index = item ? item->data(SeverityColumn, Qt::UserRole).toInt() : -1;
    if (index >= 0 && index < m_issues.size())
        Q_EMIT issueActivated(m_issues.at(index));
}

void IssuesPanel::activateRow(int row)
{
    itemActivated(m_list->topLevelItem(row));
}

} // namespace ty
