// core/engine/host_memory: the large block cache. test_engine's main installs it as the training module does,
// so every engine test trains through it; this class checks what it promises: a freed large block is handed out
// again for the same size (no new pages), small requests and raw allocations still work, values are untouched.

#include "test_suite.h"

#include "host_memory.h"

#include <QtTest>

#include <c10/core/CPUAllocator.h>
#include <torch/torch.h>

using namespace ty;

namespace {

constexpr std::int64_t kLargeFloats = 40 * 1024 * 1024 / 4;  // 40 MiB: above glibc's largest mmap threshold

class TestHostMemory : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        installLargeBlockCache();
        if (qgetenv("TRAINYARD_HOST_MEMORY") == "system")
            QSKIP("TRAINYARD_HOST_MEMORY=system leaves LibTorch's allocator alone");
        QVERIFY(largeBlockCacheInstalled());
    }

    void aFreedLargeBlockIsReused()
    {
        const LargeBlockCacheStats before = largeBlockCacheStats();
        const void *first = nullptr;
        {
            torch::Tensor a = torch::empty({kLargeFloats});
            first = a.data_ptr();
        }
        torch::Tensor b = torch::empty({kLargeFloats - 100});  // rounds up to the same size
        QCOMPARE(b.data_ptr(), first);
        QVERIFY(largeBlockCacheStats().hits >= before.hits + 1);
        // A second live block of the same size is another block.
        torch::Tensor c = torch::empty({kLargeFloats});
        QVERIFY(c.data_ptr() != b.data_ptr());
        // Freed, both wait in the cache, which holds them as unused bytes.
        b = torch::Tensor();
        c = torch::Tensor();
        QVERIFY(largeBlockCacheStats().cachedBytes >= 2 * kLargeFloats * 4);
    }

    void smallAndRawAllocationsGoThrough()
    {
        const LargeBlockCacheStats before = largeBlockCacheStats();
        torch::Tensor small = torch::ones({1000});
        QCOMPARE(small.sum().item<float>(), 1000.0f);
        QCOMPARE(largeBlockCacheStats().hits + largeBlockCacheStats().misses, before.hits + before.misses);
        // LibTorch's raw interface (used by some CPU kernels): large and small, allocated and given back.
        c10::Allocator *allocator = c10::GetCPUAllocator();
        for (std::size_t bytes : {std::size_t(4096), std::size_t(kLargeFloats * 4)}) {
            void *raw = allocator->raw_allocate(bytes);
            QVERIFY(raw);
            static_cast<char *>(raw)[bytes - 1] = 1;
            allocator->raw_deallocate(raw);
        }
    }

    void reusedMemoryComputesTheSame()
    {
        torch::manual_seed(7);
        const torch::Tensor x = torch::randn({2048, 2048});  // 16 MiB; the product below needs large blocks
        const torch::Tensor expected = torch::mm(torch::cat({x, x}), x.t()).clone();
        for (int i = 0; i < 3; ++i)
            QVERIFY(torch::equal(torch::mm(torch::cat({x, x}), x.t()), expected));
        QVERIFY(largeBlockCacheStats().hits > 0);
    }
};

} // namespace

TY_TEST_CLASS(TestHostMemory)

#include "test_host_memory.moc"
