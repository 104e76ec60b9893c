// Compiled only into a build with NCCL (USE_C10D_NCCL set for this file alone, core/engine/CMakeLists.txt).
#include "detail/nccl_group.h"

#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

namespace ty::detail {

bool ncclBuilt()
{
    return true;
}

c10::intrusive_ptr<CollectiveBackend> ncclGroup(const c10::intrusive_ptr<c10d::Store> &store, int rank, int size,
                                                std::chrono::milliseconds timeout)
{
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = timeout;
    return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, options);
}

void closeNcclGroup(CollectiveBackend &group)
{
    // As torch.distributed.destroy_process_group() does: without it the group's destructor warns, and aborts its
    // communicators from there.
    static_cast<c10d::ProcessGroupNCCL &>(group).shutdown();
}

} // namespace ty::detail
