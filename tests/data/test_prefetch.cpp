// A data set loaded ahead of need (dataset_prefetch.h): loadDataset() takes it for its own request only, as
// loaded, and loads any other request itself.

#include "test_datasets.h"

#include "dataset_fixtures.h"
#include "dataset_prefetch.h"

#include <QTest>

using namespace fixtures;

namespace {

std::optional<ty::LoadedDataset> ahead;
ty::DatasetRequest aheadRequest;
int takes = 0, releases = 0;

std::optional<ty::LoadedDataset> takeAhead(const ty::DatasetRequest &request)
{
    ++takes;
    if (!ahead || !ty::sameRequest(request, aheadRequest))
        return std::nullopt;
    std::optional<ty::LoadedDataset> out = std::move(ahead);
    ahead.reset();
    return out;
}

void releaseAhead()
{
    ++releases;
    ahead.reset();
}

QJsonObject syntheticParams(int samples)
{
    return QJsonObject{{QStringLiteral("samples"), samples}, {QStringLiteral("test_samples"), 10}, {QStringLiteral("features"), 3}};
}

} // namespace

void TestDatasets::prefetchedDatasetIsTakenOnceForItsRequest()
{
    aheadRequest = request(QStringLiteral("dataset.synthetic"), syntheticParams(40));
    ty::Result<ty::LoadedDataset> early = ty::loadDataset(aheadRequest);
    QVERIFY2(early.ok(), qPrintable(early.error().toString()));
    early.value().fingerprint = QStringLiteral("loaded ahead");  // marks the object handed over
    ahead = std::move(early).value();
    takes = 0;
    ty::setDatasetPrefetch(ty::DatasetPrefetch{&takeAhead, &releaseAhead});

    // Another request (one parameter differs): loaded as ever, and what was loaded ahead stays.
    const ty::Result<ty::LoadedDataset> other = ty::loadDataset(request(QStringLiteral("dataset.synthetic"), syntheticParams(41)));
    QVERIFY(other.ok());
    QVERIFY(!other.value().loadedAhead);
    QCOMPARE(other.value().train.size() + other.value().val.size(), int64_t(41));
    QVERIFY(ahead.has_value());

    // Its own request: the very data set, not loaded again, not post-processed again.
    const ty::Result<ty::LoadedDataset> same = ty::loadDataset(aheadRequest);
    QVERIFY(same.ok());
    QVERIFY(same.value().loadedAhead);
    QCOMPARE(same.value().fingerprint, QStringLiteral("loaded ahead"));
    QCOMPARE(same.value().train.size() + same.value().val.size(), int64_t(40));
    QCOMPARE(same.value().shape.sampleCount, int64_t(50));

    // Once: the same request again loads the data set itself.
    const ty::Result<ty::LoadedDataset> again = ty::loadDataset(aheadRequest);
    QVERIFY(again.ok());
    QVERIFY(!again.value().loadedAhead);
    QVERIFY(again.value().fingerprint != QStringLiteral("loaded ahead"));
    QCOMPARE(takes, 3);
    ty::setDatasetPrefetch(ty::DatasetPrefetch{});
}

void TestDatasets::prefetchReleaseAndRemoval()
{
    ahead = ty::LoadedDataset();
    aheadRequest = request(QStringLiteral("dataset.synthetic"), syntheticParams(30));
    releases = 0;
    ty::setDatasetPrefetch(ty::DatasetPrefetch{&takeAhead, &releaseAhead});
    ty::releasePrefetchedDataset();
    QCOMPARE(releases, 1);
    QVERIFY(!ahead.has_value());

    // Removed: nothing is asked any more.
    ahead = ty::LoadedDataset();
    takes = 0;
    ty::setDatasetPrefetch(ty::DatasetPrefetch{});
    ty::releasePrefetchedDataset();
    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(aheadRequest);
    QVERIFY(loaded.ok());
    QVERIFY(!loaded.value().loadedAhead);
    QCOMPARE(takes, 0);
    QCOMPARE(releases, 1);
    QVERIFY(ahead.has_value());
    ahead.reset();

    // Requests differ in any of their fields.
    ty::DatasetRequest a = aheadRequest, b = aheadRequest;
    QVERIFY(ty::sameRequest(a, b));
    b.stream = true;
    QVERIFY(!ty::sameRequest(a, b));
    b = a;
    b.baseDir = QStringLiteral("/elsewhere");
    QVERIFY(!ty::sameRequest(a, b));
    b = a;
    b.nodeId = QStringLiteral("other");
    QVERIFY(!ty::sameRequest(a, b));
}
