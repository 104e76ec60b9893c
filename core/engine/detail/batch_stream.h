#pragma once
// Internal to ty_engine (includes LibTorch). The batches of a streamed split (device_data.h), read from its
// sample store on a background thread into a bounded queue, so that reading the next batches overlaps the
// steps on the current one. Batches come out in the order given, as float tensors on the device, scaled as
// the in-memory path scales them: a run that streams sees exactly the samples of one that does not.

#include "detail/device_data.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace ty::detail {

class BatchStream {
public:
    // The samples `order` (a CPU int64 tensor of split indices), in batches of `batchSize`; at most `depth`
    // batches wait in the queue.
    BatchStream(const DeviceSplit &split, torch::Tensor order, int64_t batchSize, const torch::Device &device, int depth = 4);
    ~BatchStream();
    BatchStream(const BatchStream &) = delete;
    BatchStream &operator=(const BatchStream &) = delete;

    // The next batch, waiting for it when it is not read yet. Throws std::runtime_error, naming the file, when
    // the store cannot be read.
    torch::Tensor next();
    // Seconds next() spent waiting so far.
    double waitSeconds() const { return m_waitSeconds; }

private:
    void readAll();
    void readBatches();

    std::shared_ptr<const SampleStore> m_store;
    int64_t m_first;
    std::vector<int64_t> m_shape;  // of a sample
    float m_scale;
    torch::Tensor m_order;
    int64_t m_batchSize;
    torch::Device m_device;
    size_t m_depth;

    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<torch::Tensor> m_ready;
    QString m_error;
    bool m_stop = false, m_done = false;
    double m_waitSeconds = 0;
    std::thread m_reader;
};

} // namespace ty::detail
