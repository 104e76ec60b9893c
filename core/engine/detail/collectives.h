#pragma once
// Internal to ty_engine (includes LibTorch and c10d). The collectives a data-parallel run needs, on a Gloo or
// NCCL process group: sums in buckets, broadcast from rank 0, rows gathered from every rank, and the shard of a
// range that belongs to this rank. A collective that fails (a process died or stopped answering within the
// timeout) throws PeerLost.

#include <torch/torch.h>
#include <torch/version.h>

#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

// The base class of c10d's process groups: Backend since LibTorch 2.0, ProcessGroup in 1.13.
#if TORCH_VERSION_MAJOR >= 2
namespace c10d {
class Backend;
class Work;
}
namespace ty::detail {
using CollectiveBackend = c10d::Backend;
}
#else
namespace c10d {
class ProcessGroup;
class Work;
}
namespace ty::detail {
using CollectiveBackend = c10d::ProcessGroup;
}
#endif

namespace ty::detail {

// Another process of the run is gone or did not answer in time: the run ends as interrupted.
class PeerLost : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// `tensors` cut into buckets of consecutive tensors of one type and device, each of at most `cap` bytes (the first
// at most `firstCap`; a tensor larger than its cap has a bucket of its own): their indices, in order.
std::vector<std::vector<size_t>> packBuckets(const std::vector<torch::Tensor> &tensors, int64_t firstCap, int64_t cap);

class Collectives {
public:
    // `staging`: the device every tensor passes through on its way to the group (NCCL's GPU, which takes no
    // host tensors); none for Gloo, which takes tensors where they are.
    Collectives(c10::intrusive_ptr<CollectiveBackend> group, int rank, int size, std::optional<torch::Device> staging);
    ~Collectives();
    int rank() const { return m_rank; }
    int size() const { return m_size; }

    // Sums every tensor across the ranks, in place. Tensors of one type are packed into buckets of at most
    // kBucketBytes; every bucket is sent before the first is waited for.
    void sum(const std::vector<torch::Tensor> &tensors);
    // The same for one flat tensor, in two halves: started now (it must be on staged()'s device), waited for by
    // finishSum(). Every rank starts its sums in the same order.
    c10::intrusive_ptr<c10d::Work> startSum(std::vector<torch::Tensor> &flat);
    void finishSum(const c10::intrusive_ptr<c10d::Work> &work);
    // `t` on the device the group takes tensors on (NCCL's GPU; itself when there is none, or it is there).
    torch::Tensor staged(const torch::Tensor &t) const;
    // Rank 0's values into every rank's tensors, in place.
    void broadcast(const std::vector<torch::Tensor> &tensors);
    // Every rank's rows (the same trailing shape, any number of rows), in rank order, on every rank.
    torch::Tensor gatherRows(const torch::Tensor &rows);
    // The part [first, second) of `count` items that is this rank's: contiguous, sizes differing by at most one.
    std::pair<int64_t, int64_t> shard(int64_t count) const { return shardOf(count, m_rank); }
    // The same for rank `rank`.
    std::pair<int64_t, int64_t> shardOf(int64_t count, int rank) const;

    static constexpr int64_t kBucketBytes = 25 << 20;

private:
    template <typename Call>
    void checked(const char *what, Call call);
    c10::intrusive_ptr<CollectiveBackend> m_group;
    std::optional<torch::Device> m_staging;
    int m_rank = 0;
    int m_size = 1;
    bool m_peerLost = false;  // a collective failed
};

} // namespace ty::detail
