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

Result<DatasetShape> describeDataset(const DatasetRequest &request)
{
    const QString &type = request.blockType;
    if (type == QStringLiteral("dataset.fashion_mnist"))
        return guarded<DatasetShape>(request, describeFashionMnist);
    if (type == QStringLiteral("dataset.idx"))
        return guarded<DatasetShape>(request, describeIdxDataset);
    if (type == QStringLiteral("dataset.csv"))
        return guarded<DatasetShape>(request, describeCsvDataset);
    if (type == QStringLiteral("dataset.synthetic"))
        return guarded<DatasetShape>(request, describeSyntheticDataset);
    return unknownBlock<DatasetShape>(request);
}

Result<LoadedDataset> loadDataset(const DatasetRequest &request)
{
    const QString &type = request.blockType;
    if (type == QStringLiteral("dataset.fashion_mnist"))
        return guarded<LoadedDataset>(request, loadFashionMnist);
    if (type == QStringLiteral("dataset.idx"))
        return guarded<LoadedDataset>(request, loadIdxDataset);
    if (type == QStringLiteral("dataset.csv"))
        return guarded<LoadedDataset>(request, loadCsvDataset);
    if (type == QStringLiteral("dataset.synthetic"))
        return guarded<LoadedDataset>(request, loadSyntheticDataset);
    return unknownBlock<LoadedDataset>(request);
}

} // namespace ty
