#include "preset_dataset.h"

#include "block_registry.h"

namespace ty {

const Node *firstDatasetNode(const Preset &preset)
{
    const BlockRegistry &registry = BlockRegistry::builtin();
    for (const Node &node : preset.graph.nodes)
        if (const BlockDescriptor *b = registry.find(node.block); b && b->category == BlockCategory::Dataset)
            return &node;
    return nullptr;
}

DatasetRequest datasetRequest(const Preset &preset, const Node &node, bool stream)
{
    const BlockDescriptor *block = BlockRegistry::builtin().find(node.block);
    return DatasetRequest{node.block, node.id, block ? block->effectiveParams(node.params) : node.params, preset.baseDir(), stream};
}

} // namespace ty
