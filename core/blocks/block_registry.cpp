#include "block_registry.h"

namespace ty {

const BlockRegistry &BlockRegistry::builtin()
{
    static const BlockRegistry registry = [] {
        BlockRegistry r;
        addDatasetBlocks(r);
        addTransformBlocks(r);
        addLayerBlocks(r);
        addLossBlocks(r);
        addOptimizerBlocks(r);
        addScheduleBlocks(r);
        addMetricBlocks(r);
        return r;
    }();
    return registry;
}

void BlockRegistry::add(BlockDescriptor descriptor)
{
    const auto it = m_index.constFind(descriptor.typeId);
    if (it != m_index.constEnd()) {
        m_blocks[*it] = std::move(descriptor);
        return;
    }
    m_index.insert(descriptor.typeId, m_blocks.size());
    m_blocks.append(std::move(descriptor));
}

const BlockDescriptor *BlockRegistry::find(const QString &typeId) const
{
    const auto it = m_index.constFind(typeId);
    return it == m_index.constEnd() ? nullptr : &m_blocks.at(*it);
}

} // namespace ty
