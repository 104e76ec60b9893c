#pragma once
// The 200-node pipeline graph behind the editing figures of trainyard-bench and trainyard-bench-gui.

#include "preset.h"

namespace ty::bench {

// data -> 197 alternating linear / relu nodes (with a residual add every 8) -> head -> loss -> optimizer:
// 200 nodes, valid, laid out in rows of ten. Linear nodes have out_features 64.
Preset twoHundredNodeGraph();

} // namespace ty::bench
