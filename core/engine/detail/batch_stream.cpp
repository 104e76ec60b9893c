#include "detail/batch_stream.h"

#include <chrono>
#include <stdexcept>

namespace ty::detail {

BatchStream::BatchStream(const DeviceSplit &split, torch::Tensor order, int64_t batchSize, const torch::Device &device, int depth)
    : m_store(split.store), m_first(split.storeFirst), m_shape(split.sampleShape), m_scale(split.scale),
      m_order(order.to(torch::kCPU, torch::kLong).contiguous()), m_batchSize(batchSize), m_device(device),
      m_depth(size_t(std::max(1, depth)))
{
    m_reader = std::thread([this] { readAll(); });
}

BatchStream::~BatchStream()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    m_reader.join();
}

// Reads batch after batch while the queue has room (readBatches); an exception ends the stream with its message. The bytes become floats here, by a plain loop (no LibTorch
// op, so this thread never enters LibTorch's thread pool beside the training step's).
void BatchStream::readAll()
{
    try {
        readBatches();
    } catch (const std::exception &e) {  // out of memory, a pinned allocation refused: the next() that waits says so
        std::lock_guard<std::mutex> lock(m_mutex);
        m_error = QStringLiteral("cannot read the next batch: %1").arg(QString::fromLocal8Bit(e.what()).section(QLatin1Char('\n'), 0, 0));
        m_done = true;
        m_changed.notify_all();
    }
}

void BatchStream::readBatches()
{
    const int64_t n = m_order.size(0), sampleSize = m_store->sampleSize();
    const int64_t *order = m_order.data_ptr<int64_t>();
    std::vector<int64_t> rows;
    std::vector<uint8_t> bytes;
    for (int64_t begin = 0; begin < n; begin += m_batchSize) {
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_changed.wait(lock, [this] { return m_stop || m_ready.size() < m_depth; });
            if (m_stop)
                return;
        }
        const int64_t count = std::min(m_batchSize, n - begin);
        rows.resize(size_t(count));
        for (int64_t i = 0; i < count; ++i)
            rows[size_t(i)] = m_first + order[begin + i];
        bytes.resize(size_t(count * sampleSize));
        const Status read = m_store->read(rows.data(), count, bytes.data());
        std::vector<int64_t> sizes{count};
        sizes.insert(sizes.end(), m_shape.begin(), m_shape.end());
        torch::Tensor batch;
        if (read) {
            batch = torch::empty(sizes, torch::TensorOptions().dtype(torch::kFloat).pinned_memory(m_device.is_cuda()));
            float *out = batch.data_ptr<float>();
            for (size_t i = 0; i < bytes.size(); ++i)
                out[i] = float(bytes[i]) * m_scale;
        }
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!read) {
            m_error = read.error().toString();
            m_done = true;
            m_changed.notify_all();
            return;
        }
        m_ready.push_back(std::move(batch));
        m_changed.notify_all();
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    m_done = true;
    m_changed.notify_all();
}

torch::Tensor BatchStream::next()
{
    torch::Tensor batch;
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        if (m_ready.empty()) {
            const auto start = std::chrono::steady_clock::now();
            m_changed.wait(lock, [this] { return !m_ready.empty() || m_done; });
            m_waitSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
        if (m_ready.empty())
            throw std::runtime_error((m_error.isEmpty() ? QStringLiteral("the data stream ended early") : m_error).toStdString());
        batch = std::move(m_ready.front());
        m_ready.pop_front();
    }
    m_changed.notify_all();
    return batch.to(m_device, /*non_blocking=*/true);
}

} // namespace ty::detail
