// dataset.synthetic: determinism, shapes, fixed values, that each kind is learnable, parameter errors.

#include "test_datasets.h"

#include "dataset_fixtures.h"
#include "synthetic_data.h"

#include <QTest>

#include <cmath>

using namespace fixtures;

namespace {

ty::Result<ty::LoadedDataset> synthetic(QJsonObject params)
{
    return ty::loadDataset(request(QStringLiteral("dataset.synthetic"), params, QString(), QStringLiteral("synth")));
}

bool sameSplit(const ty::DataSplit &a, const ty::DataSplit &b)
{
    return a.x.sampleShape == b.x.sampleShape && a.x.floats == b.x.floats && a.y.classes == b.y.classes
           && a.y.values == b.y.values;
}

// Share of `test` samples whose nearest `train` sample (euclidean) has the same class.
double nearestNeighbourAccuracy(const ty::DataSplit &train, const ty::DataSplit &test)
{
    const int64_t width = train.x.sampleSize();
    int64_t correct = 0;
    for (int64_t t = 0; t < test.size(); ++t) {
        double best = std::numeric_limits<double>::infinity();
        int64_t label = -1;
        for (int64_t s = 0; s < train.size(); ++s) {
            double distance = 0;
            for (int64_t j = 0; j < width; ++j) {
                const double d = double(test.x.floats[size_t(t * width + j)]) - train.x.floats[size_t(s * width + j)];
                distance += d * d;
            }
            if (distance < best) {
                best = distance;
                label = train.y.classes[size_t(s)];
            }
        }
        correct += label == test.y.classes[size_t(t)];
    }
    return double(correct) / double(test.size());
}

} // namespace

void TestDatasets::syntheticDeterminism_data()
{
    QTest::addColumn<QString>("kind");
    for (const char *kind : {"blobs", "spirals", "regression", "images"})
        QTest::newRow(kind) << QString::fromLatin1(kind);
}

void TestDatasets::syntheticDeterminism()
{
    QFETCH(QString, kind);
    const QJsonObject params{{QStringLiteral("kind"), kind}, {QStringLiteral("samples"), 200},
                             {QStringLiteral("test_samples"), 50}, {QStringLiteral("seed"), 3}};
    const ty::Result<ty::LoadedDataset> a = synthetic(params);
    const ty::Result<ty::LoadedDataset> b = synthetic(params);
    QJsonObject otherSeed = params;
    otherSeed[QStringLiteral("seed")] = 4;
    const ty::Result<ty::LoadedDataset> c = synthetic(otherSeed);
    QJsonObject moreTests = params;
    moreTests[QStringLiteral("test_samples")] = 80;
    const ty::Result<ty::LoadedDataset> d = synthetic(moreTests);
    QVERIFY2(a.ok() && b.ok() && c.ok() && d.ok(), qPrintable(a.ok() ? c.error().toString() : a.error().toString()));

    QVERIFY(sameSplit(a.value().train, b.value().train));
    QVERIFY(sameSplit(a.value().val, b.value().val));
    QVERIFY(sameSplit(a.value().test, b.value().test));
    QCOMPARE(a.value().fingerprint, b.value().fingerprint);
    QCOMPARE(a.value().fingerprint.size(), 64);

    QVERIFY(!sameSplit(a.value().train, c.value().train));
    QVERIFY(a.value().train.x.floats != c.value().train.x.floats);
    QVERIFY(a.value().fingerprint != c.value().fingerprint);

    // Train and test come from separate streams: more test samples leave the training data alone.
    QVERIFY(sameSplit(a.value().train, d.value().train));
    QVERIFY(a.value().fingerprint != d.value().fingerprint);
}

// channels 3: [3, S, S] images whose channels hold the same square under noise of their own; one channel stays the
// data (and fingerprint) it was.
void TestDatasets::syntheticColourImages()
{
    const QJsonObject grey{{QStringLiteral("kind"), QStringLiteral("images")}, {QStringLiteral("samples"), 20},
                           {QStringLiteral("test_samples"), 4}, {QStringLiteral("features"), 8}, {QStringLiteral("classes"), 4},
                           {QStringLiteral("noise"), 0.01}};
    QJsonObject colour = grey;
    colour.insert(QStringLiteral("channels"), 3);
    QJsonObject explicitGrey = grey;
    explicitGrey.insert(QStringLiteral("channels"), 1);
    const ty::Result<ty::LoadedDataset> g = synthetic(grey), c = synthetic(colour), e = synthetic(explicitGrey);
    QVERIFY2(g.ok() && c.ok() && e.ok(), qPrintable(c.ok() ? g.error().toString() : c.error().toString()));
    QCOMPARE(c.value().train.x.sampleShape, (std::vector<int64_t>{3, 8, 8}));
    QCOMPARE(ty::describeDataset(request(QStringLiteral("dataset.synthetic"), colour)).value().sampleShape, (std::vector<int64_t>{3, 8, 8}));
    QVERIFY(sameSplit(g.value().train, e.value().train));
    QCOMPARE(g.value().fingerprint, e.value().fingerprint);
    QVERIFY(g.value().fingerprint != c.value().fingerprint);
    // Each sample's square (a quarter of the image) is lit in every channel; the channels differ by noise only.
    const std::vector<float> &x = c.value().train.x.floats;
    for (int64_t sample = 0; sample < c.value().train.size(); ++sample) {
        const float *image = x.data() + sample * 3 * 64;
        int lit = 0;
        for (int p = 0; p < 64; ++p) {
            lit += image[p] > 0.3f;
            QCOMPARE(image[64 + p] > 0.3f, image[p] > 0.3f);
            QCOMPARE(image[128 + p] > 0.3f, image[p] > 0.3f);
        }
        QCOMPARE(lit, 16);
    }
    QVERIFY(x[0] != x[64]);
    // Up to 64 channels (an imported model's input may have more than RGB's three).
    colour.insert(QStringLiteral("channels"), 64);
    QVERIFY(synthetic(colour).ok());
    colour.insert(QStringLiteral("channels"), 65);
    QVERIFY(!synthetic(colour).ok());
}

void TestDatasets::syntheticShapes_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<int>("features");
    QTest::addColumn<int>("classes");
    QTest::addColumn<std::vector<int64_t>>("sampleShape");
    QTest::addColumn<bool>("classification");

    QTest::newRow("blobs") << "blobs" << 5 << 3 << std::vector<int64_t>{5} << true;
    QTest::newRow("spirals") << "spirals" << 9 << 5 << std::vector<int64_t>{2} << true;
    QTest::newRow("regression") << "regression" << 7 << 3 << std::vector<int64_t>{7} << false;
    QTest::newRow("images") << "images" << 12 << 9 << std::vector<int64_t>{1, 12, 12} << true;
}

void TestDatasets::syntheticShapes()
{
    QFETCH(QString, kind);
    QFETCH(int, features);
    QFETCH(int, classes);
    QFETCH(std::vector<int64_t>, sampleShape);
    QFETCH(bool, classification);

    const QJsonObject params{{QStringLiteral("kind"), kind},         {QStringLiteral("samples"), 50},
                             {QStringLiteral("test_samples"), 13},   {QStringLiteral("features"), features},
                             {QStringLiteral("classes"), classes},   {QStringLiteral("val_fraction"), 0.2}};
    const ty::Result<ty::DatasetShape> shape =
        ty::describeDataset(request(QStringLiteral("dataset.synthetic"), params));
    const ty::Result<ty::LoadedDataset> loaded = synthetic(params);
    QVERIFY2(shape.ok(), qPrintable(shape.error().toString()));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    const ty::LoadedDataset &d = loaded.value();

    for (const ty::DatasetShape &s : {shape.value(), d.shape}) {
        QCOMPARE(s.sampleShape, sampleShape);
        QCOMPARE(s.classification, classification);
        QCOMPARE(s.numClasses, classification ? int64_t(classes) : int64_t(0));
    }
    QCOMPARE(d.train.size(), int64_t(40));
    QCOMPARE(d.val.size(), int64_t(10));
    QCOMPARE(d.test.size(), int64_t(13));
    QVERIFY(d.sourceFiles.isEmpty());
    for (const ty::DataSplit *split : {&d.train, &d.val, &d.test}) {
        QCOMPARE(split->x.sampleShape, sampleShape);
        QVERIFY(split->x.isFloat);
        QCOMPARE(split->x.floats.size(), size_t(split->size() * split->x.sampleSize()));
        QCOMPARE(split->y.classification, classification);
        if (classification) {
            QCOMPARE(split->y.classes.size(), size_t(split->size()));
            for (const int64_t label : split->y.classes)
                QVERIFY(label >= 0 && label < classes);
        } else {
            QCOMPARE(split->y.width, int64_t(1));
            QCOMPARE(split->y.values.size(), size_t(split->size()));
        }
        for (const float v : split->x.floats)
            QVERIFY(std::isfinite(v));
    }
}

void TestDatasets::syntheticGoldenValues()
{
    // Fixed numbers: the generator must not change silently (and must be the same on every platform).
    ty::SyntheticSpec spec;
    spec.kind = QStringLiteral("blobs");
    spec.features = 3;
    spec.classes = 2;
    spec.seed = 7;
    const ty::DataSplit blobs = ty::generateSynthetic(spec, 2, 1);
    const std::vector<float> expected{-1.08264816f, -1.18303788f, 0.475976735f, 0.710348189f, 1.98161519f, 0.992559433f};
    QCOMPARE(blobs.x.floats.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
        QVERIFY2(qAbs(blobs.x.floats[i] - expected[i]) < 1e-5f, qPrintable(QString::number(blobs.x.floats[i], 'g', 9)));
    QCOMPARE(blobs.y.classes, (std::vector<int64_t>{0, 1}));
    QCOMPARE(ty::syntheticFingerprint(spec), QStringLiteral("97f67a742775db831ad7e650ef734a56c54f8fdce6ade8e910da9cb2b2292f39"));
}

void TestDatasets::syntheticLearnable_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<int>("features");
    QTest::addColumn<int>("classes");
    QTest::addColumn<double>("noise");
    QTest::addColumn<double>("minAccuracy");

    QTest::newRow("blobs") << "blobs" << 8 << 4 << 0.1 << 0.95;
    QTest::newRow("blobs in 1-D") << "blobs" << 1 << 4 << 0.1 << 0.9;
    QTest::newRow("blobs, 10 classes, noisy") << "blobs" << 2 << 10 << 0.3 << 0.6;
    QTest::newRow("spirals") << "spirals" << 2 << 3 << 0.1 << 0.75;
    QTest::newRow("images") << "images" << 8 << 4 << 0.1 << 0.95;
    QTest::newRow("images, 10 classes, noisy") << "images" << 12 << 10 << 0.5 << 0.6;
}

void TestDatasets::syntheticLearnable()
{
    // Far above chance for a nearest-neighbour rule, so a small network learns it too.
    QFETCH(QString, kind);
    QFETCH(int, features);
    QFETCH(int, classes);
    QFETCH(double, noise);
    QFETCH(double, minAccuracy);
    const ty::Result<ty::LoadedDataset> d = synthetic(
        {{QStringLiteral("kind"), kind}, {QStringLiteral("features"), features}, {QStringLiteral("classes"), classes},
         {QStringLiteral("noise"), noise}, {QStringLiteral("samples"), 600}, {QStringLiteral("test_samples"), 200},
         {QStringLiteral("val_fraction"), 0.0}});
    QVERIFY2(d.ok(), qPrintable(d.error().toString()));
    const double accuracy = nearestNeighbourAccuracy(d.value().train, d.value().test);
    QVERIFY2(accuracy >= minAccuracy, qPrintable(QStringLiteral("accuracy %1, chance %2").arg(accuracy).arg(1.0 / classes)));
}

void TestDatasets::syntheticRegressionIsLinear()
{
    // Least squares on the training split predicts the test split to within the noise.
    const double noise = 0.02;
    const ty::Result<ty::LoadedDataset> d = synthetic(
        {{QStringLiteral("kind"), QStringLiteral("regression")}, {QStringLiteral("features"), 3},
         {QStringLiteral("noise"), noise}, {QStringLiteral("samples"), 300}, {QStringLiteral("test_samples"), 100}});
    QVERIFY2(d.ok(), qPrintable(d.error().toString()));
    const ty::DataSplit &train = d.value().train;
    constexpr int k = 4;  // three weights and a bias
    double a[k][k + 1] = {};
    for (int64_t i = 0; i < train.size(); ++i) {
        const double row[k] = {train.x.floats[size_t(3 * i)], train.x.floats[size_t(3 * i + 1)],
                               train.x.floats[size_t(3 * i + 2)], 1.0};
        for (int r = 0; r < k; ++r) {
            for (int c = 0; c < k; ++c)
                a[r][c] += row[r] * row[c];
            a[r][k] += row[r] * train.y.values[size_t(i)];
        }
    }
    for (int p = 0; p < k; ++p)  // Gauss-Jordan; the normal matrix is well conditioned here
        for (int r = 0; r < k; ++r)
            if (r != p) {
                const double f = a[r][p] / a[p][p];
                for (int c = p; c <= k; ++c)
                    a[r][c] -= f * a[p][c];
            }
    double squaredError = 0, sumY = 0, sumYY = 0;
    const ty::DataSplit &test = d.value().test;
    for (int64_t i = 0; i < test.size(); ++i) {
        double prediction = a[3][k] / a[3][3];
        for (int j = 0; j < 3; ++j)
            prediction += a[j][k] / a[j][j] * test.x.floats[size_t(3 * i + j)];
        const double y = test.y.values[size_t(i)];
        squaredError += (prediction - y) * (prediction - y);
        sumY += y;
        sumYY += y * y;
    }
    const double rmse = std::sqrt(squaredError / double(test.size()));
    const double spread = std::sqrt(sumYY / double(test.size()) - std::pow(sumY / double(test.size()), 2));
    QVERIFY2(rmse < 2 * noise, qPrintable(QString::number(rmse)));
    QVERIFY2(spread > 0.3, qPrintable(QString::number(spread)));
}

void TestDatasets::syntheticParamErrors_data()
{
    QTest::addColumn<QJsonObject>("params");
    QTest::addColumn<QString>("field");
    const QString images = QStringLiteral("images");
    QTest::newRow("unknown kind") << QJsonObject{{QStringLiteral("kind"), QStringLiteral("moons")}} << "kind";
    QTest::newRow("tiny images") << QJsonObject{{QStringLiteral("kind"), images}, {QStringLiteral("features"), 3}}
                                 << "features";
    QTest::newRow("too many classes for the image")
        << QJsonObject{{QStringLiteral("kind"), images}, {QStringLiteral("features"), 4}, {QStringLiteral("classes"), 17}}
        << "classes";
    QTest::newRow("absurd size") << QJsonObject{{QStringLiteral("samples"), 10000000}, {QStringLiteral("features"), 100000}}
                                 << "samples";
    QTest::newRow("absurd test size")
        << QJsonObject{{QStringLiteral("test_samples"), 10000000}, {QStringLiteral("features"), 1000}} << "test_samples";
    QTest::newRow("negative noise") << QJsonObject{{QStringLiteral("noise"), -1}} << "noise";
    QTest::newRow("seed as text") << QJsonObject{{QStringLiteral("seed"), QStringLiteral("97f67a742775db831ad7e650ef734a56c54f8fdce6ade8e910da9cb2b2292f39")}} << "seed";
    QTest::newRow("fractional samples") << QJsonObject{{QStringLiteral("samples"), 10.5}} << "samples";
}

void TestDatasets::syntheticParamErrors()
{
    QFETCH(QJsonObject, params);
    QFETCH(QString, field);
    const ty::DatasetRequest r = request(QStringLiteral("dataset.synthetic"), params, QString(), QStringLiteral("gen"));
    for (const ty::Error &e : {ty::describeDataset(r).error(), ty::loadDataset(r).error()}) {
        QCOMPARE(e.field, field);
        QCOMPARE(e.node, QStringLiteral("gen"));
        QVERIFY(!e.message.isEmpty());
    }
}
