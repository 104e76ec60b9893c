// A build without NCCL (core/engine/CMakeLists.txt): training.dist_backend nccl is refused before a group is made.
#include "detail/nccl_group.h"

#include <stdexcept>

namespace ty::detail {

bool ncclBuilt()
{
    return false;
}

c10::intrusive_ptr<CollectiveBackend> ncclGroup(const c10::intrusive_ptr<c10d::Store> &, int, int, std::chrono::milliseconds)
{
    throw std::logic_error("this build has no NCCL");
}

void closeNcclGroup(CollectiveBackend &, bool)
{
}

} // namespace ty::detail
