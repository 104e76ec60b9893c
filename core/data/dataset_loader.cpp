#include "dataset_loader.h"

#include "csv_dataset.h"
#include "idx_datasets.h"
#include "synthetic_data.h"

#include <exception>
#include <new>

namespace ty {

namespace {

template <typename T>
Result<T> unknownBlock(const DatasetRequest &request)
{
    Error e;
    e.node = request.nodeId;
    e.message = QStringLiteral("'%1' is not a dataset block this version can read").arg(request.blockType);
    return e;
}

// Runs a reader, turning an exception (an allocation that failed, say) into an Error.
template <typename T, typename F>
Result<T> guarded(const DatasetRequest &request, F &&reader)
{
    Error e;
    e.node = request.nodeId;
    try {
        return reader(request);
    } catch (const std::bad_alloc &) {
        e.message = QStringLiteral("out of memory while reading the dataset");
    } catch (const std::exception &exception) {
        e.message = QStringLiteral("reading the dataset failed: %1").arg(QString::fromLocal8Bit(exception.what()));
    }
    return e;
}

} // namespace

const KindTable<DatasetReader> &datasetReaders()
{
    static const KindTable<DatasetReader> readers = [] {
        KindTable<DatasetReader> t;
        t.add(QStringLiteral("dataset.fashion_mnist"), {describeFashionMnist, loadFashionMnist});
        t.add(QStringLiteral("dataset.idx"), {describeIdxDataset, loadIdxDataset});
        t.add(QStringLiteral("dataset.csv"), {describeCsvDataset, loadCsvDataset});
        t.add(QStringLiteral("dataset.synthetic"), {describeSyntheticDataset, loadSyntheticDataset});
        return t;
    }();
    return readers;
}

Result<DatasetShape> describeDataset(const DatasetRequest &request)
{
    const DatasetReader *reader = datasetReaders().find(request.blockType);
    if (!reader)
        return unknownBlock<DatasetShape>(request);
    return guarded<DatasetShape>(request, reader->describe);
}

Result<LoadedDataset> loadDataset(const DatasetRequest &request)
{
    const DatasetReader *reader = datasetReaders().find(request.blockType);
    if (!reader)
        return unknownBlock<LoadedDataset>(request);
    Result<LoadedDataset> loaded = guarded<LoadedDataset>(request, reader->load);
    if (loaded) {
        LoadedDataset &d = loaded.value();
        d.shape.sampleCount = d.train.size() + d.val.size() + d.test.size();
    }
    return loaded;
}

} // namespace ty
