#include "dataset_loader.h"

#include "cifar_dataset.h"
#include "csv_dataset.h"
#include "dataset_params.h"
#include "dataset_prefetch.h"
#include "dataset_split.h"
#include "idx_datasets.h"
#include "image_datasets.h"
#include "synthetic_data.h"
#include "text_dataset.h"

#include <exception>
#include <new>

namespace ty {

namespace {

template <typename T>
Result<T> unknownBlock(const DatasetRequest &request)
{
    return Error::atNode(request.nodeId, QStringLiteral("'%1' is not a dataset block this version can read").arg(request.blockType));
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

// keep_classes, the same for every reader: the readers keep the samples (resolving the list the same way
// before they split); the classes are checked, counted and named here, so describe and load agree.
Status applyKeptClasses(const DatasetRequest &request, DatasetShape &shape, QStringList *classNames)
{
    DatasetParams params(request);
    SplitSettings settings = readSplitSettings(params);
    if (!params.ok())
        return params.firstError();
    if (const Status s = resolveKeptClasses(settings, params, shape); !s)
        return s;
    if (settings.keepClasses.empty())
        return Status::success();
    shape.numClasses = int64_t(settings.keepClasses.size());
    if (!shape.classLabels.isEmpty())
        shape.classLabels = keptClassNames(settings, shape.classLabels);
    if (classNames)
        *classNames = keptClassNames(settings, *classNames);
    return Status::success();
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
        t.add(QStringLiteral("dataset.text"), {describeTextDataset, loadTextDataset});
        t.add(QStringLiteral("dataset.image_folder"), {describeImageFolder, loadImageFolder, true});
        t.add(QStringLiteral("dataset.image_list"), {describeImageList, loadImageList, true});
        t.add(QStringLiteral("dataset.cifar"), {describeCifarDataset, loadCifarDataset});
        return t;
    }();
    return readers;
}

Result<DatasetShape> describeDataset(const DatasetRequest &request)
{
    const DatasetReader *reader = datasetReaders().find(request.blockType);
    if (!reader)
        return unknownBlock<DatasetShape>(request);
    Result<DatasetShape> shape = guarded<DatasetShape>(request, reader->describe);
    if (shape)
        if (const Status kept = applyKeptClasses(request, shape.value(), nullptr); !kept)
            return kept.error();
    return shape;
}

Result<LoadedDataset> loadDataset(const DatasetRequest &request)
{
    const DatasetReader *reader = datasetReaders().find(request.blockType);
    if (!reader)
        return unknownBlock<LoadedDataset>(request);
    if (std::optional<LoadedDataset> ahead = takePrefetchedDataset(request)) {
        ahead->loadedAhead = true;
        return std::move(*ahead);  // loaded by this function in the program (dataset_prefetch.h), complete
    }
    Result<LoadedDataset> loaded = guarded<LoadedDataset>(request, reader->load);
    if (loaded) {
        if (const Status kept = applyKeptClasses(request, loaded.value().shape, &loaded.value().classNames); !kept)
            return kept.error();
        LoadedDataset &d = loaded.value();
        d.shape.sampleCount = d.train.size() + d.val.size() + d.test.size();
        d.shape.sampleValueBytes = d.train.x.isFloat ? 4 : 1;
    }
    return loaded;
}

} // namespace ty
