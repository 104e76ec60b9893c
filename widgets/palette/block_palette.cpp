#include "block_palette.h"

#include "common/canvas_style.h"
#include "canvas/canvas_view.h"
#include "icons/icon_library.h"

#include "block_registry.h"
#include "composite_blocks.h"
#include "param_values.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QMimeData>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTreeView>
#include <QVBoxLayout>

namespace ty {

namespace {

// Blocks drag as their type id.
class BlockListModel : public QStandardItemModel {
public:
    using QStandardItemModel::QStandardItemModel;

    QStringList mimeTypes() const override { return {QString::fromLatin1(kBlockMimeType)}; }

    QMimeData *mimeData(const QModelIndexList &indexes) const override
    {
        for (const QModelIndex &index : indexes) {
            const QString type = index.data(BlockPalette::kTypeIdRole).toString();
            if (!type.isEmpty()) {
                auto *mime = new QMimeData;
                mime->setData(QString::fromLatin1(kBlockMimeType), type.toUtf8());
                return mime;
            }
        }
        return nullptr;
    }
};

QString portList(const QList<PortSpec> &ports)
{
    QStringList parts;
    for (const PortSpec &port : ports)
        parts << QStringLiteral("%1 <i>(%2)</i>").arg(port.name, portKindName(port.kind));
    return parts.isEmpty() ? QObject::tr("none") : parts.join(QStringLiteral(", "));
}

QString blockToolTip(const BlockDescriptor &block)
{
    QString tip = QStringLiteral("<p style='white-space:pre'><b>%1</b>  <span style='color:gray'>%2</span></p><p>%3</p>")
                      .arg(block.displayName.toHtmlEscaped(), block.typeId, block.doc.toHtmlEscaped());
    tip += QObject::tr("<p style='white-space:pre'>Inputs: %1<br>Outputs: %2</p>")
               .arg(portList(block.inputs), portList(block.outputs));
    if (!block.params.isEmpty()) {
        tip += QStringLiteral("<table cellspacing=0 cellpadding=1>");
        for (const ParamSpec &param : block.params)
            tip += QStringLiteral("<tr><td><code>%1</code>&nbsp;</td><td>%2 <span style='color:gray'>(%3)</span></td></tr>")
                       .arg(param.name, param.doc.toHtmlEscaped(), paramValueText(param.defaultValue).toHtmlEscaped());
        tip += QStringLiteral("</table>");
    }
    return tip + QObject::tr("<p><i>Drag onto the canvas, or double-click to add.</i></p>");
}

} // namespace

BlockPalette::BlockPalette(QWidget *parent)
    : QWidget(parent), m_search(new QLineEdit(this)), m_view(new QTreeView(this)),
      m_model(new BlockListModel(this)), m_filter(new QSortFilterProxyModel(this))
{
    m_search->setPlaceholderText(tr("Search blocks"));
    m_search->setClearButtonEnabled(true);
    m_search->addAction(icons::actionIcon(QStringLiteral("search")), QLineEdit::LeadingPosition);

    m_filter->setSourceModel(m_model);
    m_filter->setFilterRole(kSearchRole);
    m_filter->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filter->setRecursiveFilteringEnabled(true);
    m_filter->setAutoAcceptChildRows(true);

    m_view->setModel(m_filter);
    m_view->setHeaderHidden(true);
    m_view->setDragEnabled(true);
    m_view->setDragDropMode(QAbstractItemView::DragOnly);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setIconSize(QSize(18, 18));
    m_view->setIndentation(14);
    m_view->setUniformRowHeights(true);
    m_view->setAnimated(true);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    layout->addWidget(m_search);
    layout->addWidget(m_view);

    populate();
    m_view->expandAll();
    connect(m_search, &QLineEdit::textChanged, this, &BlockPalette::setFilterText);
    connect(m_view, &QTreeView::activated, this, &BlockPalette::activate);
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        const QStringList shown = visibleBlocks();
        if (shown.size() == 1)
            Q_EMIT blockActivated(shown.first());
    });
}

void BlockPalette::populate()
{
    QMap<int, QStandardItem *> categories;  // by BlockCategory
    for (const BlockDescriptor &block : BlockRegistry::builtin().all()) {
        QStandardItem *category = categories.value(int(block.category));
        if (!category) {
            category = new QStandardItem(icons::categoryIcon(block.category), style::categoryTitle(block.category));
            QFont bold = category->font();
            bold.setBold(true);
            category->setFont(bold);
            category->setDragEnabled(false);
            category->setData(style::categoryTitle(block.category) + QLatin1Char(' ') + categoryName(block.category),
                              kSearchRole);
            m_model->appendRow(category);
            categories.insert(int(block.category), category);
        }
        addItem(category, block);
    }
}

void BlockPalette::addItem(QStandardItem *category, const BlockDescriptor &block)
{
    auto *item = new QStandardItem(icons::categoryIcon(block.category), block.displayName);
    item->setData(block.typeId, kTypeIdRole);
    item->setData(QStringList{block.displayName, block.typeId, categoryName(block.category)}.join(QLatin1Char(' ')),
                  kSearchRole);
    item->setToolTip(blockToolTip(block));
    item->setStatusTip(block.doc);
    item->setDragEnabled(true);
    category->appendRow(item);
}

void BlockPalette::loadLibrary(const QString &folder)
{
    if (m_library)
        m_model->removeRow(m_library->row());
    m_library = nullptr;
    const QList<LibraryBlock> blocks = loadBlockLibrary(folder);
    if (blocks.isEmpty())
        return;
    m_library = new QStandardItem(icons::categoryIcon(BlockCategory::Layer), tr("My blocks"));
    QFont bold = m_library->font();
    bold.setBold(true);
    m_library->setFont(bold);
    m_library->setDragEnabled(false);
    m_library->setData(tr("My blocks") + QStringLiteral(" composite library"), kSearchRole);
    m_model->appendRow(m_library);
    for (const LibraryBlock &entry : blocks) {
        const Result<CompositeDefinition> definition = compositeFromJson(entry.name, entry.definition, entry.path);
        if (definition)
            addItem(m_library, compositeDescriptor(definition.value()));
    }
    m_view->expandAll();
}

void BlockPalette::setFilterText(const QString &text)
{
    if (m_search->text() != text)
        m_search->setText(text);
    m_filter->setFilterFixedString(text.trimmed());
    m_view->expandAll();
}

QStringList BlockPalette::visibleBlocks() const
{
    QStringList ids;
    for (int c = 0; c < m_filter->rowCount(); ++c) {
        const QModelIndex category = m_filter->index(c, 0);
        for (int r = 0; r < m_filter->rowCount(category); ++r)
            ids << m_filter->index(r, 0, category).data(kTypeIdRole).toString();
    }
    return ids;
}

void BlockPalette::activate(const QModelIndex &index)
{
    const QString type = index.data(kTypeIdRole).toString();
    if (!type.isEmpty())
        Q_EMIT blockActivated(type);
}

} // namespace ty
