#pragma once
// Internal to ty_engine. c10d's NCCL process group, for distributed runs on CUDA. It is built when LibTorch is a
// CUDA build and NCCL's header is found (core/engine/CMakeLists.txt, docs/distributed.md); ncclBuilt() says so.

#include "detail/collectives.h"

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>

namespace ty::detail {

bool ncclBuilt();

// A group of `size` processes on NCCL, meeting through `store`; every collective may wait `timeout`. Only when
// ncclBuilt().
c10::intrusive_ptr<CollectiveBackend> ncclGroup(const c10::intrusive_ptr<c10d::Store> &store, int rank, int size,
                                                std::chrono::milliseconds timeout);
// Ends a group made by ncclGroup before it is destroyed: shuts it down, or aborts it when a collective failed
// (`peerLost`). Never throws.
void closeNcclGroup(CollectiveBackend &group, bool peerLost);

} // namespace ty::detail
