#pragma once
// Internal to ty_engine (includes LibTorch and c10d). A data-parallel step's gradients summed over the ranks while
// the backward pass still runs, as DDP's reducer does (docs/distributed.md, "The exchange of a step").
//
// The trainable parameters go into buckets in reverse order, the order in which the backward pass finishes their
// gradients: the first bucket small (kFirstBucketBytes) so that the first exchange starts early, the others up to
// Collectives::kBucketBytes. A hook on each parameter's gradient accumulator notes when its gradient is complete; a
// bucket is sent once all of its gradients are and every bucket before it was sent, so every rank sends the
// same buckets in the same order whatever order its backward pass took. What the backward pass did not send (a
// parameter without a gradient in this step, a step that failed, or a backward pass that was not armed) is sent
// by finish().

#include "detail/collectives.h"

#include <memory>
#include <string>
#include <vector>

namespace torch::autograd {
struct Node;
}

namespace ty::detail {

class GradientReducer {
public:
    // For `parameters`, the ones that train, in the same order on every rank; one reducer per stage's model.
    GradientReducer(Collectives &group, std::vector<torch::Tensor> parameters);
    ~GradientReducer();
    GradientReducer(const GradientReducer &) = delete;
    GradientReducer &operator=(const GradientReducer &) = delete;

    // The next backward pass is the step's last: its complete gradients are sent as they come.
    void arm();
    // Sends every bucket not sent yet, waits for all of them and leaves the sums in the parameters' gradients (a
    // parameter without a gradient on this rank sends zeros and keeps none). Ready for the next step after.
    // Returns this rank's error when a gradient could not be sent or given its sum (its bucket then carried
    // zeros, so the exchanges stay in step with the other ranks); empty when none. Throws PeerLost when a process
    // of the run is lost.
    std::string finish();

    // How many buckets there are, and how many of this step's were sent so far (tests).
    size_t bucketCount() const;
    size_t bucketsSent() const;

    static constexpr int64_t kFirstBucketBytes = 1 << 20;
    struct State;  // gradient_reducer.cpp's, shared with its hooks

private:
    std::shared_ptr<State> m_state;  // shared with the hooks, which may outlive this object in autograd's graph
    std::vector<std::shared_ptr<torch::autograd::Node>> m_accumulators;
    std::vector<uintptr_t> m_hookKeys;
};

} // namespace ty::detail
