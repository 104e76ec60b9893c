#include "preset_diff_view.h"

#include "common/canvas_style.h"
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ty {

PresetDiffView::PresetDiffView(QWidget *parent) : QWidget(parent), m_title(new QLabel(this)), m_tree(new QTreeWidget(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_title->setWordWrap(true);
    layout->addWidget(m_title);
    layout->addWidget(m_tree);
    m_tree->setRootIsDecorated(false);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setHeaderLabels({tr("Change"), tr("Where"), tr("Field"), tr("A"), tr("B")});
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        const QString node = item->data(1, Qt::UserRole).toString();
        if (!node.isEmpty())
            Q_EMIT nodeActivated(node);
    });
    showHint();
}

void PresetDiffView::showHint()
{
    showMessage(tr("Select two runs (or pin a baseline and select one) to see what differs between their presets."));
}

void PresetDiffView::showDiff(const QString &titleA, const Preset &a, const QString &titleB, const Preset &b)
{
    m_differences = diffPresets(a, b);
    m_tree->clear();
    m_title->setText(m_differences.isEmpty()
                         ? tr("A: %1, B: %2: the presets are equivalent.").arg(titleA, titleB)
                         : tr("A: %1, B: %2: %3.").arg(titleA, titleB, style::counted(m_differences.size(), tr("difference"), tr("differences"))));
    for (const PresetDifference &d : std::as_const(m_differences)) {
        const QString where = d.node.isEmpty() ? (d.kind == PresetDifferenceKind::TrainingChanged ? QStringLiteral("training")
                                                                                                  : QString())
                                               : d.node;
        auto *item = new QTreeWidgetItem(m_tree, {presetDifferenceKindName(d.kind), where, d.field, d.before, d.after});
        item->setData(1, Qt::UserRole, d.node);
        item->setToolTip(0, d.text);
    }
}

void PresetDiffView::showMessage(const QString &message)
{
    m_differences.clear();
    m_tree->clear();
    m_title->setText(message);
}

} // namespace ty
