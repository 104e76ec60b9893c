// The large block cache of host_memory.h: a c10::Allocator in front of the one LibTorch had. Its data pointers
// are their own context (as LibTorch's raw_allocate and raw_deallocate require), so one deleter serves both: a
// block of ours goes back to the cache, any other pointer to the allocator it came from.

#include "host_memory.h"

#include "host_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include <cstring>
#include <list>
#include <mutex>
#include <unordered_map>

namespace ty {

namespace {

constexpr std::size_t kLargeBlock = std::size_t(32) << 20;  // glibc's largest mmap threshold: it maps these
constexpr std::size_t kGranule = std::size_t(2) << 20;      // sizes rounded up to this, so near sizes share
constexpr std::size_t kMaxCached = std::size_t(1) << 30;    // at most 1 GiB held unused

class LargeBlockCache final : public c10::Allocator {
public:
    explicit LargeBlockCache(c10::Allocator *fallback) : m_fallback(fallback) {}

    c10::DataPtr allocate(std::size_t bytes) const override
    {
        if (bytes < kLargeBlock)
            return m_fallback->allocate(bytes);
        const std::size_t size = (bytes + kGranule - 1) / kGranule * kGranule;
        if (void *data = reuse(size))
            return handOut(data);
        c10::DataPtr block = m_fallback->allocate(size);  // outside the lock
        void *data = block.get();
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            ++m_misses;
            m_inUse.emplace(data, Block{size, std::move(block)});
        }
        return handOut(data);
    }

    c10::DeleterFnPtr raw_deleter() const override { return &LargeBlockCache::deleteRaw; }

    // LibTorch 2.3 and later ask allocators to copy (a pure virtual there; no such member in 1.13).
    void copy_data(void *destination, const void *source, std::size_t count) const
    {
        std::memcpy(destination, source, count);
    }

    LargeBlockCacheStats stats() const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return {m_hits, m_misses, qint64(m_cachedBytes)};
    }

    static LargeBlockCache *instance;

private:
    struct Block {
        std::size_t size;
        c10::DataPtr block;  // from the fallback allocator, which frees it
    };

    static void deleteRaw(void *data) { instance->release(data); }
    static c10::DataPtr handOut(void *data) { return c10::DataPtr(data, data, &deleteRaw, c10::Device(c10::DeviceType::CPU)); }

    // A cached block of exactly `size` bytes, now in use; nullptr when there is none.
    void *reuse(std::size_t size) const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        for (auto it = m_free.begin(); it != m_free.end(); ++it) {
            if (it->size != size)
                continue;
            void *data = it->block.get();
            m_cachedBytes -= size;
            m_inUse.emplace(data, std::move(*it));
            m_free.erase(it);
            ++m_hits;
            return data;
        }
        return nullptr;
    }

    // A block of ours is kept, newest first; the oldest go back to the fallback allocator beyond kMaxCached.
    // Anything else was the fallback's (a small raw allocation).
    void release(void *data) const
    {
        std::list<Block> dropped;  // freed once the lock is released
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            const auto used = m_inUse.find(data);
            if (used != m_inUse.end()) {
                Block block = std::move(used->second);
                m_inUse.erase(used);
                data = nullptr;
                if (block.size > kMaxCached) {
                    dropped.push_back(std::move(block));
                } else {
                    while (m_cachedBytes + block.size > kMaxCached) {  // ends by the empty list at the latest
                        m_cachedBytes -= m_free.back().size;
                        dropped.splice(dropped.end(), m_free, std::prev(m_free.end()));
                    }
                    m_cachedBytes += block.size;
                    m_free.push_front(std::move(block));
                }
            }
        }
        if (data)
            m_fallback->raw_deleter()(data);
    }

    c10::Allocator *m_fallback;
    mutable std::mutex m_mutex;
    mutable std::unordered_map<void *, Block> m_inUse;
    mutable std::list<Block> m_free;
    mutable std::size_t m_cachedBytes = 0;
    mutable qint64 m_hits = 0, m_misses = 0;
};

LargeBlockCache *LargeBlockCache::instance = nullptr;
std::once_flag installOnce;

} // namespace

void installLargeBlockCache()
{
    std::call_once(installOnce, [] {
        if (hostMemoryLeftAlone())
            return;
        c10::Allocator *fallback = c10::GetCPUAllocator();
        if (!fallback->raw_deleter())
            return;  // an allocator without raw deallocation cannot be stood in front of
        // Never destroyed: tensors freed at exit still come back to it.
        LargeBlockCache::instance = new LargeBlockCache(fallback);
        c10::SetCPUAllocator(LargeBlockCache::instance, /*priority=*/1);
    });
}

bool largeBlockCacheInstalled()
{
    return LargeBlockCache::instance != nullptr && c10::GetCPUAllocator() == LargeBlockCache::instance;
}

LargeBlockCacheStats largeBlockCacheStats()
{
    return LargeBlockCache::instance ? LargeBlockCache::instance->stats() : LargeBlockCacheStats{};
}

} // namespace ty
