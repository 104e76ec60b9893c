#include "sweep_parameter_list.h"

#include <QHeaderView>

namespace ty {

namespace {

constexpr int kKeyRole = Qt::UserRole;

} // namespace

SweepParameterList::SweepParameterList(const Preset &preset, QWidget *parent)
    : QTreeWidget(parent), m_params(sweepableParams(preset))
{
    setObjectName(QStringLiteral("sweepParameters"));
    setColumnCount(3);
    setHeaderLabels({tr("Parameter"), tr("Now"), tr("Allowed")});
    setRootIsDecorated(true);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    header()->setStretchLastSection(false);
    header()->setSectionResizeMode(NameColumn, QHeaderView::Stretch);
    header()->setSectionResizeMode(CurrentColumn, QHeaderView::ResizeToContents);
    header()->setSectionResizeMode(RangeColumn, QHeaderView::ResizeToContents);

    QFont bold = font();
    bold.setBold(true);
    QTreeWidgetItem *group = nullptr;
    for (const SweepableParam &p : std::as_const(m_params)) {
        if (!group || group->data(NameColumn, kKeyRole).toString() != p.node + QLatin1Char('.')) {
            group = new QTreeWidgetItem(this, {p.nodeLabel});
            group->setData(NameColumn, kKeyRole, p.node + QLatin1Char('.'));  // a node: not a key
            group->setFont(NameColumn, bold);
            group->setFirstColumnSpanned(true);
            group->setFlags(Qt::ItemIsEnabled);
        }
        auto *item = new QTreeWidgetItem(group, {p.name, p.current, allowedRangeText(p.spec)});
        item->setData(NameColumn, kKeyRole, p.key());
        item->setToolTip(NameColumn, QStringLiteral("%1: %2").arg(p.key(), p.spec.doc));
        item->setTextAlignment(CurrentColumn, Qt::AlignRight | Qt::AlignVCenter);
        item->setToolTip(RangeColumn, p.spec.type == ParamType::Int ? tr("whole numbers from %1").arg(allowedRangeText(p.spec))
                                                                    : tr("numbers from %1").arg(allowedRangeText(p.spec)));
    }
    expandAll();
    connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        const QString key = item ? item->data(NameColumn, kKeyRole).toString() : QString();
        if (!key.isEmpty() && !key.endsWith(QLatin1Char('.')))
            Q_EMIT parameterChosen(key);
    });
}

const SweepableParam *SweepParameterList::param(const QString &key) const
{
    for (const SweepableParam &p : m_params)
        if (p.key() == key)
            return &p;
    return nullptr;
}

QTreeWidgetItem *SweepParameterList::itemOf(const QString &key) const
{
    for (int g = 0; g < topLevelItemCount(); ++g)
        for (int i = 0; i < topLevelItem(g)->childCount(); ++i)
            if (topLevelItem(g)->child(i)->data(NameColumn, kKeyRole).toString() == key)
                return topLevelItem(g)->child(i);
    return nullptr;
}

QString SweepParameterList::currentKey() const
{
    const QString key = currentItem() ? currentItem()->data(NameColumn, kKeyRole).toString() : QString();
    return key.endsWith(QLatin1Char('.')) ? QString() : key;
}

bool SweepParameterList::selectKey(const QString &key)
{
    QTreeWidgetItem *item = itemOf(key);
    if (!item)
        return false;
    setCurrentItem(item);
    scrollToItem(item);
    return true;
}

void SweepParameterList::setSearchedKeys(const QStringList &keys)
{
    for (int g = 0; g < topLevelItemCount(); ++g)
        for (int i = 0; i < topLevelItem(g)->childCount(); ++i) {
            QTreeWidgetItem *item = topLevelItem(g)->child(i);
            const QString key = item->data(NameColumn, kKeyRole).toString();
            QFont font = item->font(NameColumn);
            font.setBold(keys.contains(key));
            item->setFont(NameColumn, font);
            const SweepableParam *p = param(key);
            item->setToolTip(NameColumn, QStringLiteral("%1: %2%3").arg(key, p ? p->spec.doc : QString(),
                                                                     keys.contains(key) ? tr(" (searched)") : QString()));
        }
}

} // namespace ty
