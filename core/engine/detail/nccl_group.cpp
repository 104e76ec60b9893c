// Compiled only into a build with NCCL (USE_C10D_NCCL set for this file alone, core/engine/CMakeLists.txt).
#include "detail/nccl_group.h"

#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#include <torch/version.h>

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

void closeNcclGroup(CollectiveBackend &group, bool peerLost)
{
    // As torch.distributed.destroy_process_group() does (LibTorch 2.2 and later): without it the group's destructor
    // warns, and a warning crashed one build (docs/development.md). shutdown() lets pending work finish, which
    // after a lost peer could wait for ever: then abort().
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 2)
    auto &nccl = static_cast<c10d::ProcessGroupNCCL &>(group);
    try {
        if (peerLost)
            nccl.abort();
        else
            nccl.shutdown();
    } catch (const std::exception &) {
        // the group is going anyway
    }
#else
    (void)group;
    (void)peerLost;
#endif
}

} // namespace ty::detail
