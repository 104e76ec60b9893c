#include "synthetic_data.h"

#include "dataset_params.h"
#include "dataset_split.h"
#include "json_io.h"
#include "portable_random.h"
#include "sha256.h"

#include <QJsonObject>

#include <cmath>

namespace ty {

namespace {

constexpr uint64_t kShapeStream = 0;  // centres, weights: shared by train and test
constexpr double kPi = 3.14159265358979323846;

int64_t gridSide(int64_t classes)
{
    int64_t g = 1;
    while (g * g < classes)
        ++g;
    return g;
}

// Blob centres in [-2, 2]^d. In few dimensions each centre is the best of 32 candidates (farthest from the
// centres so far), which spreads them evenly; in many dimensions random centres are far apart anyway.
std::vector<double> blobCentres(const SyntheticSpec &spec)
{
    PortableRandom random(spec.seed, kShapeStream);
    const size_t d = size_t(spec.features);
    const int candidates = spec.features < 8 ? 32 : 1;
    std::vector<double> centres;
    std::vector<double> candidate(d), best(d);
    for (int64_t k = 0; k < spec.classes; ++k) {
        double bestDistance = -1.0;
        for (int c = 0; c < candidates; ++c) {
            for (double &v : candidate)
                v = random.uniform(-2.0, 2.0);
            double nearest = std::numeric_limits<double>::infinity();
            for (int64_t other = 0; other < k; ++other) {
                double distance = 0.0;
                for (size_t j = 0; j < d; ++j) {
                    const double diff = candidate[j] - centres[size_t(other) * d + j];
                    distance += diff * diff;
                }
                nearest = std::min(nearest, distance);
            }
            if (nearest > bestDistance) {
                bestDistance = nearest;
                best = candidate;
            }
        }
        centres.insert(centres.end(), best.begin(), best.end());
    }
    return centres;
}

void generateBlobs(const SyntheticSpec &spec, PortableRandom &random, DataSplit &out)
{
    const std::vector<double> centres = blobCentres(spec);
    const size_t d = size_t(spec.features);
    for (int64_t i = 0; i < out.size(); ++i) {
        const int64_t k = i % spec.classes;
        out.y.classes[size_t(i)] = k;
        for (size_t j = 0; j < d; ++j)
            out.x.floats[size_t(i) * d + j] = float(centres[size_t(k) * d + j] + spec.noise * random.normal());
    }
}

void generateSpirals(const SyntheticSpec &spec, PortableRandom &random, DataSplit &out)
{
    for (int64_t i = 0; i < out.size(); ++i) {
        const int64_t k = i % spec.classes;
        const double t = random.uniform();  // position along the arm: radius 0 .. 1
        const double angle = 2.0 * kPi * double(k) / double(spec.classes) + 4.0 * t;
        out.y.classes[size_t(i)] = k;
        out.x.floats[size_t(2 * i)] = float(t * std::cos(angle) + spec.noise * random.normal());
        out.x.floats[size_t(2 * i + 1)] = float(t * std::sin(angle) + spec.noise * random.normal());
    }
}

void generateRegression(const SyntheticSpec &spec, PortableRandom &random, DataSplit &out)
{
    const size_t d = size_t(spec.features);
    PortableRandom shape(spec.seed, kShapeStream);
    std::vector<double> weights(d);
    for (double &w : weights)
        w = shape.normal() / std::sqrt(double(d));
    const double bias = 0.5 * shape.normal();
    for (int64_t i = 0; i < out.size(); ++i) {
        double y = bias;
        for (size_t j = 0; j < d; ++j) {
            const double x = random.normal();
            out.x.floats[size_t(i) * d + j] = float(x);
            y += weights[j] * x;
        }
        out.y.values[size_t(i)] = float(y + spec.noise * random.normal());
    }
}

void generateImages(const SyntheticSpec &spec, PortableRandom &random, DataSplit &out)
{
    const int64_t side = spec.features;
    const int64_t grid = gridSide(spec.classes);
    const size_t pixels = size_t(side * side);
    for (int64_t i = 0; i < out.size(); ++i) {
        const int64_t k = i % spec.classes;
        out.y.classes[size_t(i)] = k;
        const int64_t top = (k / grid) * side / grid, bottom = (k / grid + 1) * side / grid;
        const int64_t left = (k % grid) * side / grid, right = (k % grid + 1) * side / grid;
        const double amplitude = random.uniform(0.6, 1.0);
        // Every channel holds the same square, with noise of its own.
        for (int64_t channel = 0; channel < spec.channels; ++channel) {
            float *image = out.x.floats.data() + size_t(i * spec.channels + channel) * pixels;
            for (int64_t r = 0; r < side; ++r)
                for (int64_t c = 0; c < side; ++c) {
                    const bool lit = r >= top && r < bottom && c >= left && c < right;
                    image[r * side + c] = float((lit ? amplitude : 0.0) + spec.noise * random.normal());
                }
        }
    }
}

Result<SyntheticSpec> readSpec(DatasetParams &params)
{
    SyntheticSpec spec;
    spec.kind = params.choice(QStringLiteral("kind"), spec.kind,
                              {QStringLiteral("blobs"), QStringLiteral("spirals"), QStringLiteral("regression"),
                               QStringLiteral("images")});
    spec.samples = params.integer(QStringLiteral("samples"), spec.samples, 1, 10000000);
    spec.testSamples = params.integer(QStringLiteral("test_samples"), spec.testSamples, 0, 10000000);
    spec.features = params.integer(QStringLiteral("features"), spec.features, 1, 100000);
    spec.classes = params.integer(QStringLiteral("classes"), spec.classes, 2, 1000);
    spec.noise = params.number(QStringLiteral("noise"), spec.noise, 0.0, 100.0);
    spec.channels = params.integer(QStringLiteral("channels"), spec.channels, 1, 64);
    spec.seed = uint64_t(params.integer(QStringLiteral("seed"), 0, 0, 2147483647));
    if (!params.ok())
        return params.firstError();

    if (spec.kind == QStringLiteral("images")) {
        if (spec.features < 4)
            return params.error(QStringLiteral("features"),
                                QStringLiteral("images need a side of at least 4 pixels, got %1").arg(spec.features));
        if (gridSide(spec.classes) > spec.features)
            return params.error(QStringLiteral("classes"),
                                QStringLiteral("%1 classes need images of at least %2 x %2 pixels (features is %3)")
                                    .arg(spec.classes).arg(gridSide(spec.classes)).arg(spec.features));
    }
    const DatasetShape shape = syntheticShape(spec);
    int64_t perSample = 1;
    for (const int64_t dim : shape.sampleShape)
        perSample *= dim;
    for (const auto &[field, count] : {std::pair{QStringLiteral("samples"), spec.samples},
                                       std::pair{QStringLiteral("test_samples"), spec.testSamples}}) {
        if (count > kSyntheticMaxValues / perSample)
            return params.error(field, QStringLiteral("%1 samples of %2 values each are more than the %3 values allowed")
                                           .arg(count).arg(perSample).arg(kSyntheticMaxValues));
    }
    return spec;
}

} // namespace

DatasetShape syntheticShape(const SyntheticSpec &spec)
{
    DatasetShape shape;
    shape.classification = spec.kind != QStringLiteral("regression");
    shape.numClasses = shape.classification ? spec.classes : 0;
    shape.targetWidth = 1;
    if (spec.kind == QStringLiteral("spirals"))
        shape.sampleShape = {2};
    else if (spec.kind == QStringLiteral("images"))
        shape.sampleShape = {spec.channels, spec.features, spec.features};
    else
        shape.sampleShape = {spec.features};
    return shape;
}

DataSplit generateSynthetic(const SyntheticSpec &spec, int64_t count, uint64_t stream)
{
    const DatasetShape shape = syntheticShape(spec);
    DataSplit out;
    out.x.sampleShape = shape.sampleShape;
    out.x.isFloat = true;
    out.x.count = count;
    out.x.floats.resize(size_t(count * out.x.sampleSize()));
    out.y.classification = shape.classification;
    out.y.count = count;
    if (shape.classification)
        out.y.classes.resize(size_t(count));
    else
        out.y.values.resize(size_t(count));

    PortableRandom random(spec.seed, stream);
    if (spec.kind == QStringLiteral("spirals"))
        generateSpirals(spec, random, out);
    else if (spec.kind == QStringLiteral("regression"))
        generateRegression(spec, random, out);
    else if (spec.kind == QStringLiteral("images"))
        generateImages(spec, random, out);
    else
        generateBlobs(spec, random, out);
    return out;
}

QString syntheticFingerprint(const SyntheticSpec &spec)
{
    QJsonObject parameters{
        {QStringLiteral("generator"), QStringLiteral("trainyard-synthetic-1")},
        {QStringLiteral("kind"), spec.kind},
        {QStringLiteral("samples"), double(spec.samples)},
        {QStringLiteral("test_samples"), double(spec.testSamples)},
        {QStringLiteral("features"), double(spec.features)},
        {QStringLiteral("classes"), double(spec.classes)},
        {QStringLiteral("noise"), spec.noise},
        {QStringLiteral("seed"), double(spec.seed)},
    };
    if (spec.kind == QStringLiteral("images") && spec.channels != 1)  // one channel keeps the fingerprints it had
        parameters.insert(QStringLiteral("channels"), double(spec.channels));
    return QString::fromLatin1(
        Sha256::hash(canonicalJson(parameters)).toHex());
}

Result<DatasetShape> describeSyntheticDataset(const DatasetRequest &request)
{
    DatasetParams params(request);
    Result<SyntheticSpec> spec = readSpec(params);
    if (!spec)
        return spec.error();
    const SplitSettings split = readSplitSettings(params);
    if (!params.ok())
        return params.firstError();
    DatasetShape shape = syntheticShape(spec.value());
    if (Status splitOk = checkTrainingSplit(spec.value().samples, split, params); !splitOk)  // as the load will check
        return splitOk.error();
    shape.sampleCount = loadedSampleCount(spec.value().samples, spec.value().testSamples, split);
    return shape;
}

Result<LoadedDataset> loadSyntheticDataset(const DatasetRequest &request)
{
    DatasetParams params(request);
    Result<SyntheticSpec> spec = readSpec(params);
    if (!spec)
        return spec.error();
    SplitSettings split = readSplitSettings(params);
    if (!params.ok())
        return params.firstError();

    LoadedDataset dataset;
    dataset.shape = syntheticShape(spec.value());
    if (const Status s = resolveKeptClasses(split, params, dataset.shape); !s)
        return s.error();
    dataset.fingerprint = syntheticFingerprint(spec.value());
    DataSplit test = generateSynthetic(spec.value(), spec.value().testSamples, 2);
    if (const Status s = splitTrainValidation(generateSynthetic(spec.value(), spec.value().samples, 1), split, params,
                                              QStringLiteral("samples"), dataset.train, dataset.val); !s)
        return s.error();
    applyTestSettings(test, split);
    dataset.test = std::move(test);
    return dataset;
}

} // namespace ty
