// core/common/host_allocator: with the thresholds fixed, the memory pattern of a training step (a few MB in
// blocks of 512 kB, all freed at the step's end) is served from the same pages step after step; with glibc's
// defaults the heap's top is given back to the kernel after every step and faulted in again (the first epoch's
// slowness of issue 38). Each pattern runs in a fresh process (this test program started again with
// TY_HOST_ALLOCATOR_PROBE set, which runs the probe before main), so that nothing this test process allocated
// has moved glibc's state.

#include "test_suite.h"

#include "host_allocator.h"

#include <QCoreApplication>
#include <QProcess>
#include <QtTest>

#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace ty;

namespace {

constexpr int kSteps = 64;
constexpr int kBlocksPerStep = 16;
constexpr std::size_t kBlock = 512 * 1024;  // an MLP step's activation at batch 128: 400 kB
constexpr long kPagesPerStep = long(kBlocksPerStep * kBlock / 4096);

// The probe: the exit code is the minor page faults of kSteps steps, in thousands (at most 250); 255 when the
// set-up asked for was not applied.
int probe(const char *mode)
{
    if (std::strcmp(mode, "configured") == 0 && !configureHostAllocatorForTraining())
        return 255;
    struct rusage before {}, after {};
    ::getrusage(RUSAGE_SELF, &before);
    for (int step = 0; step < kSteps; ++step) {
        char *blocks[kBlocksPerStep];
        for (char *&block : blocks) {
            block = static_cast<char *>(std::malloc(kBlock));
            std::memset(block, step, kBlock);
        }
        asm volatile("" : : "r"(blocks) : "memory");  // the writes are not optimised away
        for (char *block : blocks)
            std::free(block);
    }
    ::getrusage(RUSAGE_SELF, &after);
    return int(std::min(250L, (after.ru_minflt - before.ru_minflt) / 1000));
}

// Runs before main() in a process this test started: the heap is still as glibc made it.
const bool probed = [] {
    if (const char *mode = std::getenv("TY_HOST_ALLOCATOR_PROBE"))
        std::_Exit(probe(mode));
    return false;
}();

// The fault count of a fresh process running the probe in `mode` ("defaults" or "configured"), in thousands.
int faultsInFreshProcess(const QString &mode)
{
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("TY_HOST_ALLOCATOR_PROBE"), mode);
    environment.remove(QStringLiteral("GLIBC_TUNABLES"));
    environment.remove(QStringLiteral("TRAINYARD_HOST_MEMORY"));
    process.setProcessEnvironment(environment);
    process.start(QCoreApplication::applicationFilePath(), {});
    if (!process.waitForFinished(60000) || process.exitStatus() != QProcess::NormalExit)
        return -1;
    return process.exitCode();
}

class TestHostAllocator : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void stepsReuseTheirPagesOnceConfigured();
    void userSettingsWin();
};

void TestHostAllocator::stepsReuseTheirPagesOnceConfigured()
{
#if !defined(__GLIBC__)
    QSKIP("the thresholds are glibc's");
#endif
#if defined(__SANITIZE_ADDRESS__)
    QSKIP("AddressSanitizer replaces glibc's allocator: its thresholds do not apply");
#endif
    // glibc's defaults: the step's pages are given back and faulted in again, about 128 a block (131,000 in all).
    // This shows that the count sees the faults at all.
    const int defaults = faultsInFreshProcess(QStringLiteral("defaults"));
    QVERIFY2(defaults >= kSteps * kPagesPerStep / 2 / 1000, qPrintable(QStringLiteral("%1 thousand faults with glibc's defaults").arg(defaults)));
    // Set up for training: only the first step faults its pages in.
    const int configured = faultsInFreshProcess(QStringLiteral("configured"));
    QVERIFY2(configured != 255, "configureHostAllocatorForTraining() was not applied");
    QVERIFY2(configured >= 0 && configured <= 4 * kPagesPerStep / 1000,
             qPrintable(QStringLiteral("%1 thousand faults once configured").arg(configured)));
}

void TestHostAllocator::userSettingsWin()
{
    QVERIFY(tunablesSetMalloc("glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=268435456"));
    QVERIFY(tunablesSetMalloc("glibc.cpu.hwcaps=-AVX2:glibc.malloc.arena_max=2"));
    QVERIFY(!tunablesSetMalloc("glibc.cpu.hwcaps=-AVX2"));
    QVERIFY(!tunablesSetMalloc(QByteArray()));
    qputenv("TRAINYARD_HOST_MEMORY", "system");
    QVERIFY(hostMemoryLeftAlone());
    qunsetenv("TRAINYARD_HOST_MEMORY");
    QVERIFY(!hostMemoryLeftAlone());
}

} // namespace

TY_TEST_CLASS(TestHostAllocator)

#include "test_host_allocator.moc"
