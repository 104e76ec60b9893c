#include "detail/gradient_reducer.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <mutex>

namespace ty::detail {

struct GradientReducer::State {
    struct Bucket {
        std::vector<size_t> members;  // indices into `parameters`, in the bucket's order
        std::vector<int64_t> offsets; // where each member starts in the flat buffer
        std::vector<torch::Tensor> flat;  // one flat tensor, as c10d takes it
        size_t waitingFor = 0;        // members whose gradient is not complete yet in this step
        c10::intrusive_ptr<c10d::Work> work;
    };
    Collectives *group = nullptr;
    std::vector<torch::Tensor> parameters;
    std::vector<size_t> bucketOf;  // per parameter
    std::vector<Bucket> buckets;   // in the order they are sent
    std::vector<char> complete;    // per parameter, in this step
    size_t nextToSend = 0;
    bool armed = false;
    std::string failure;  // of a gradient that could not be sent in this step
    // The hooks run on autograd's threads (one per device) while finish() may not; a bucket is sent by one of them.
    std::mutex mutex;

    void gradientComplete(size_t parameter);
    void send(Bucket &bucket);
    void copyBack();  // the sums into the gradients, once every bucket was waited for
    void reset();
};

void GradientReducer::State::gradientComplete(size_t parameter)
{
    const std::lock_guard<std::mutex> lock(mutex);
    if (!armed || complete[parameter])
        return;
    complete[parameter] = 1;
    --buckets[bucketOf[parameter]].waitingFor;
    while (nextToSend < buckets.size() && buckets[nextToSend].waitingFor == 0)
        send(buckets[nextToSend++]);
}

// Never fails but for a lost process (PeerLost): a gradient that cannot be copied (its error kept for finish())
// leaves the bucket's zeros, which are sent all the same, so that every rank still sends every bucket.
void GradientReducer::State::send(Bucket &bucket)
{
    torch::NoGradGuard noGrad;
    torch::Tensor &flat = bucket.flat.front();
    try {
        for (size_t i = 0; i < bucket.members.size(); ++i) {
            const torch::Tensor &p = parameters[bucket.members[i]];
            torch::Tensor slot = flat.narrow(0, bucket.offsets[i], p.numel());
            if (p.grad().defined())
                slot.view(p.grad().sizes()).copy_(p.grad());
            else
                slot.zero_();
        }
    } catch (const std::exception &e) {
        if (failure.empty())
            failure = e.what();
        flat.zero_();
    }
    bucket.work = group->startSum(bucket.flat);
}

void GradientReducer::State::copyBack()
{
    torch::NoGradGuard noGrad;
    for (const Bucket &bucket : buckets)
        for (size_t i = 0; i < bucket.members.size(); ++i) {
            const torch::Tensor &p = parameters[bucket.members[i]];
            if (p.grad().defined())
                p.grad().copy_(bucket.flat.front().narrow(0, bucket.offsets[i], p.numel()).view(p.grad().sizes()));
        }
}

void GradientReducer::State::reset()
{
    for (Bucket &bucket : buckets) {
        bucket.waitingFor = bucket.members.size();
        bucket.work.reset();
    }
    std::fill(complete.begin(), complete.end(), 0);
    nextToSend = 0;
    armed = false;
    failure.clear();
}

namespace {

// Called after a parameter's gradient accumulator added this backward pass's gradient: the gradient is complete.
class GradientCompleteHook : public torch::autograd::FunctionPostHook {
public:
    GradientCompleteHook(std::weak_ptr<GradientReducer::State> state, size_t parameter)
        : m_state(std::move(state)), m_parameter(parameter)
    {
    }
    torch::autograd::variable_list operator()(const torch::autograd::variable_list &outputs,
                                              const torch::autograd::variable_list &) override
    {
        if (const std::shared_ptr<GradientReducer::State> state = m_state.lock())
            state->gradientComplete(m_parameter);
        return outputs;
    }

private:
    std::weak_ptr<GradientReducer::State> m_state;
    size_t m_parameter;
};

} // namespace

GradientReducer::GradientReducer(Collectives &group, std::vector<torch::Tensor> parameters)
    : m_state(std::make_shared<State>())
{
    State &state = *m_state;
    state.group = &group;
    state.parameters = std::move(parameters);
    state.bucketOf.assign(state.parameters.size(), 0);
    state.complete.assign(state.parameters.size(), 0);
    // Buckets in reverse order of the parameters, each of one type and device.
    const std::vector<torch::Tensor> reversed(state.parameters.rbegin(), state.parameters.rend());
    for (const std::vector<size_t> &members : packBuckets(reversed, kFirstBucketBytes, Collectives::kBucketBytes)) {
        State::Bucket &bucket = state.buckets.emplace_back();
        int64_t numel = 0;
        for (size_t r : members) {
            const size_t k = state.parameters.size() - 1 - r;
            bucket.members.push_back(k);
            bucket.offsets.push_back(numel);
            state.bucketOf[k] = state.buckets.size() - 1;
            numel += state.parameters[k].numel();
        }
        bucket.flat = {group.staged(torch::empty({numel}, reversed[members.front()].options().requires_grad(false)))};
    }
    state.reset();
    // A hook on each parameter's gradient accumulator, which lives as long as this reducer holds it.
    for (size_t k = 0; k < state.parameters.size(); ++k) {
        std::shared_ptr<torch::autograd::Node> accumulator = torch::autograd::impl::grad_accumulator(state.parameters[k]);
        m_hookKeys.push_back(accumulator->add_post_hook(std::make_unique<GradientCompleteHook>(m_state, k)));
        m_accumulators.push_back(std::move(accumulator));
    }
}

GradientReducer::~GradientReducer()
{
    for (size_t k = 0; k < m_accumulators.size(); ++k)
        m_accumulators[k]->del_post_hook(m_hookKeys[k]);
}

size_t GradientReducer::bucketCount() const
{
    return m_state->buckets.size();
}

size_t GradientReducer::bucketsSent() const
{
    const std::lock_guard<std::mutex> lock(m_state->mutex);
    return m_state->nextToSend;
}

void GradientReducer::arm()
{
    const std::lock_guard<std::mutex> lock(m_state->mutex);
    m_state->armed = true;
}

std::string GradientReducer::finish()
{
    State &state = *m_state;
    const std::lock_guard<std::mutex> lock(state.mutex);
    state.armed = false;
    std::string failure;
    try {
        while (state.nextToSend < state.buckets.size())
            state.send(state.buckets[state.nextToSend++]);
        for (State::Bucket &bucket : state.buckets)
            state.group->finishSum(bucket.work);
        failure = state.failure;
        if (failure.empty())
            state.copyBack();
    } catch (const PeerLost &) {
        state.reset();
        throw;
    } catch (const std::exception &e) {
        failure = e.what();  // copying the sums back: every bucket was sent and waited for
    }
    state.reset();
    return failure;
}

} // namespace ty::detail
