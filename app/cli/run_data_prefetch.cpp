#include "run_data_prefetch.h"

#include "available_memory.h"
#include "commands.h"
#include "file_fingerprint.h"
#include "memory_estimate.h"
#include "preset_dataset.h"
#include "preset_inspection.h"

#include <QTextStream>

#include <future>
#include <mutex>

namespace ty::cli {

namespace {

struct Prefetched {
    DatasetRequest request;
    std::optional<LoadedDataset> dataset;  // empty when the load failed
};

std::mutex prefetchMutex;
std::future<Prefetched> pending;  // valid from start until taken, released or finished
// Set on the thread that loads ahead: where the training commands are linked in (tests), its own loadDataset()
// reaches take(), which must not wait for that very thread. (release() is only called by the training thread.)
thread_local bool loadingAhead = false;

// The request the engine will make for this preset (TrainingRun::prepare), when it loads into memory for sure.
std::optional<DatasetRequest> inMemoryRequest(const QStringList &arguments)
{
    const Args args = parseArgs(arguments, runValuedOptions(), runFlags());
    if (!args.error.isEmpty() || args.positionals.size() != 1 || args.options.contains(QStringLiteral("sweep")))
        return std::nullopt;
    QString ignored;
    QTextStream sink(&ignored);
    Io quiet{sink, sink};
    Preset preset;
    if (!loadPresetWithOverrides(args.positionals.first(), args, &preset, quiet))
        return std::nullopt;
    const Node *datasetNode = firstDatasetNode(preset);
    if (!datasetNode)
        return std::nullopt;
    const DatasetReader *reader = datasetReaders().find(datasetNode->block);
    if (!reader || reader->canStream)
        return std::nullopt;  // image folders and lists: the engine decides whether to stream them
    ShapeReport report = inspectPresetShapes(preset);
    placeDataOn(&report, true);  // the data set is loaded into host memory, as the CPU holds it
    if (!report.ok() || !report.memory.known)
        return std::nullopt;
    const qint64 limit = memoryLimitOverride();
    const qint64 host = limit > 0 ? limit : availableHostMemory();
    if (host <= 0 || report.memory.data > host / 2 || !memoryShortfall(report, host, QString()).isEmpty())
        return std::nullopt;
    return datasetRequest(preset, *datasetNode);
}

// Any failure, an exception included, leaves the load to the engine, which reports it.
Prefetched load(const QStringList &arguments)
{
    loadingAhead = true;
    Prefetched out;
    try {
        const std::optional<DatasetRequest> request = inMemoryRequest(arguments);
        if (!request)
            return out;
        out.request = *request;
        const NoFingerprintThreads alone;  // see file_fingerprint.h
        Result<LoadedDataset> loaded = loadDataset(*request);
        if (loaded)
            out.dataset = std::move(loaded).value();
    } catch (const std::exception &) {
        out.dataset.reset();
    }
    return out;
}

std::optional<LoadedDataset> take(const DatasetRequest &request)
{
    if (loadingAhead)
        return std::nullopt;
    std::lock_guard<std::mutex> lock(prefetchMutex);
    if (!pending.valid())
        return std::nullopt;
    Prefetched done = pending.get();  // waits for the load
    if (!done.dataset || !sameRequest(done.request, request))
        return std::nullopt;
    return std::move(done.dataset);
}

void release()
{
    std::lock_guard<std::mutex> lock(prefetchMutex);
    if (pending.valid())
        pending.get();  // the result goes out of scope here
}

} // namespace

void startRunDataPrefetch(const QStringList &runArguments)
{
    std::lock_guard<std::mutex> lock(prefetchMutex);
    if (!pending.valid())
        pending = std::async(std::launch::async, load, runArguments);
}

DatasetPrefetch runDataPrefetch()
{
    return DatasetPrefetch{&take, &release};
}

void finishRunDataPrefetch()
{
    release();
}

} // namespace ty::cli
