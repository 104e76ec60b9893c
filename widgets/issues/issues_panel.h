#pragma once
// The issues list: every issue of the document's latest validation report (severity, node, message), or a
// single "No issues" row (for a pipeline with no node yet, a hint what to add instead of its errors). Clicking an issue asks to select and centre its node (issueActivated).
// Ownership: the document is not owned and must outlive the panel. Thread affinity: the GUI thread.

#include "issue.h"

#include <QWidget>

class QTreeWidget;
class QTreeWidgetItem;

namespace ty {

class PipelineDocument;

class IssuesPanel : public QWidget {
    Q_OBJECT
public:
    explicit IssuesPanel(PipelineDocument *document, QWidget *parent = nullptr);

    QTreeWidget *list() const { return m_list; }
    int issueCount() const { return int(m_issues.size()); }
    // "2 errors, 1 warning, 1 note" or "No issues".
    QString summary() const;
    // Activates row `row` as a click would.
    void activateRow(int row);

Q_SIGNALS:
    void issueActivated(const ty::Issue &issue);
    void summaryChanged(const QString &summary, int errors, int warnings, int notes);

private:
    void refresh();
    void itemActivated(QTreeWidgetItem *item);

    PipelineDocument *m_document;
    QTreeWidget *m_list;
    Issues m_issues;
};

} // namespace ty

Q_DECLARE_METATYPE(ty::Issue)
