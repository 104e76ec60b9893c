#pragma once
// The registry of every block type, keyed by type id. Immutable once built; safe to read from any thread.

#include "block_descriptor.h"

#include <QHash>
#include <QList>

namespace ty {

class BlockRegistry {
public:
    // Every built-in block, built once on first use.
    static const BlockRegistry &builtin();

    void add(BlockDescriptor descriptor);  // replaces a block with the same type id
    const BlockDescriptor *find(const QString &typeId) const;
    const QList<BlockDescriptor> &all() const { return m_blocks; }  // in palette order

private:
    QList<BlockDescriptor> m_blocks;
    QHash<QString, int> m_index;
};

// The built-in blocks, by category (defined in builtin_blocks_*.cpp).
void addDatasetBlocks(BlockRegistry &registry);
void addTransformBlocks(BlockRegistry &registry);
void addLayerBlocks(BlockRegistry &registry);
void addLossBlocks(BlockRegistry &registry);
void addOptimizerBlocks(BlockRegistry &registry);
void addScheduleBlocks(BlockRegistry &registry);
void addMetricBlocks(BlockRegistry &registry);

} // namespace ty
