#pragma once
// The block palette: every block of the registry, grouped by category, searchable by name, type id and
// category, each with its doc, ports and parameters as a tooltip. Blocks are dragged onto the canvas
// (kBlockMimeType); double-click or Enter asks for the block at the canvas centre.
// Ownership: owns its models. Thread affinity: the GUI thread.

#include <QWidget>

class QLineEdit;
class QStandardItem;
class QModelIndex;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTreeView;

namespace ty {

struct BlockDescriptor;

class BlockPalette : public QWidget {
    Q_OBJECT
public:
    explicit BlockPalette(QWidget *parent = nullptr);

    QLineEdit *searchField() const { return m_search; }
    QTreeView *view() const { return m_view; }
    void setFilterText(const QString &text);
    // Shows the composites of the user's block library in `folder` under "My blocks" (none: no such group).
    void loadLibrary(const QString &folder);
    QStringList visibleBlocks() const;  // type ids that pass the filter, in palette order

    static constexpr int kTypeIdRole = Qt::UserRole + 1;
    static constexpr int kSearchRole = Qt::UserRole + 2;

Q_SIGNALS:
    void blockActivated(const QString &typeId);

private:
    void populate();
    void addItem(QStandardItem *category, const BlockDescriptor &block);
    void activate(const QModelIndex &index);

    QLineEdit *m_search;
    QTreeView *m_view;
    QStandardItemModel *m_model;
    QSortFilterProxyModel *m_filter;
    QStandardItem *m_library = nullptr;
};

} // namespace ty
