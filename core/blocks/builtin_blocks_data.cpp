// Dataset and transform blocks.

#include "block_registry.h"
#include "param_values.h"

namespace ty {

using namespace spec;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

QList<ParamSpec> splitParams()
{
    return {
        floatParam(QStringLiteral("val_fraction"), 0.1, 0.0, 0.9,
                   QStringLiteral("Share of the training examples held out for validation")),
        intParam(QStringLiteral("val_count"), 0, 0, 1e9,
                 QStringLiteral("Number of training examples held out for validation; overrides val_fraction when above 0")),
        intParam(QStringLiteral("limit"), 0, 0, 1e9,
                 QStringLiteral("Use at most this many training examples (0: all), for quick runs")),
        intParam(QStringLiteral("test_limit"), 0, 0, 1e9,
                 QStringLiteral("Use at most this many test examples (0: all)")),
        intParam(QStringLiteral("split_seed"), 0, 0, 2147483647.0,
                 QStringLiteral("Seed of the shuffle that splits training from validation examples")),
        stringParam(QStringLiteral("keep_classes"), QString(),
                    QStringLiteral("Classification: the classes to keep, e.g. 5,6,7,8,9 (a CSV's: its labels as written), "
                                   "renumbered 0, 1, ... in this order before the splits and limits (empty: all)")),
    };
}

// How an image data set decodes, sizes and splits its images (core/data/image_datasets.h).
QList<ParamSpec> imageParams()
{
    return {
        choiceParam(QStringLiteral("channels"), QStringLiteral("rgb"), {QStringLiteral("gray"), QStringLiteral("rgb")},
                    QStringLiteral("Decode every image to grey (1 channel) or colour (3 channels)")),
        intParam(QStringLiteral("height"), 32, 1, 4096, QStringLiteral("Height of the samples, in pixels")),
        intParam(QStringLiteral("width"), 32, 1, 4096, QStringLiteral("Width of the samples, in pixels")),
        choiceParam(QStringLiteral("fit"), QStringLiteral("stretch"), {QStringLiteral("stretch"), QStringLiteral("crop")},
                    QStringLiteral("An image of another size is stretched to the sample size, or scaled to cover it and cut to its centre")),
        floatParam(QStringLiteral("test_fraction"), 0.2, 0.0, 0.9,
                   QStringLiteral("Share of the training images held out as the test split when there is no test/ folder "
                                  "(or split column)")),
        intParam(QStringLiteral("threads"), 0, 0, 256, QStringLiteral("Threads decoding the images (0: one per core)")),
        boolParam(QStringLiteral("cache"), true,
                  QStringLiteral("Keep the decoded images in ~/.cache/trainyard/images, so that the next run starts fast")),
    };
}

BlockDescriptor dataset(const QString &id, const QString &name, const QString &doc, const QString &xPort,
                        const QString &yPort, QList<ParamSpec> params)
{
    BlockDescriptor d;
    d.typeId = id;
    d.category = BlockCategory::Dataset;
    d.displayName = name;
    d.doc = doc;
    d.outputs = {port(xPort, PortKind::Tensor, QStringLiteral("A batch of samples")),
                 port(yPort, PortKind::Target, QStringLiteral("The batch's labels or targets"))};
    d.params = std::move(params);
    return d;
}

BlockDescriptor transform(const QString &id, const QString &name, const QString &doc, QList<ParamSpec> params)
{
    BlockDescriptor d;
    d.typeId = id;
    d.category = BlockCategory::Transform;
    d.displayName = name;
    d.doc = doc;
    d.inputs = {port(QStringLiteral("in"), PortKind::Tensor, QStringLiteral("A batch of samples"))};
    d.outputs = {port(QStringLiteral("out"), PortKind::Tensor, QStringLiteral("The transformed batch"))};
    d.params = std::move(params);
    return d;
}

} // namespace

void addDatasetBlocks(BlockRegistry &registry)
{
    registry.add(dataset(
        QStringLiteral("dataset.fashion_mnist"), QStringLiteral("Fashion-MNIST"),
        QStringLiteral("Zalando's 28x28 grey clothing images in 10 classes, read from IDX files"),
        QStringLiteral("images"), QStringLiteral("labels"),
        QList<ParamSpec>{pathParam(QStringLiteral("dir"), QStringLiteral("/usr/share/datasets/fashion-mnist"),
                                   QStringLiteral("Folder holding the four IDX files, gzipped or not"))}
            + splitParams()));

    registry.add(dataset(
        QStringLiteral("dataset.idx"), QStringLiteral("IDX files"),
        QStringLiteral("Any MNIST-style pair of IDX files (samples and labels), gzipped or not"),
        QStringLiteral("images"), QStringLiteral("labels"),
        QList<ParamSpec>{
            pathParam(QStringLiteral("train_images"), QString(), QStringLiteral("IDX file of the training samples")),
            pathParam(QStringLiteral("train_labels"), QString(), QStringLiteral("IDX file of the training labels")),
            pathParam(QStringLiteral("test_images"), QString(),
                      QStringLiteral("IDX file of the test samples (empty: no test split)")),
            pathParam(QStringLiteral("test_labels"), QString(), QStringLiteral("IDX file of the test labels")),
            boolParam(QStringLiteral("scale"), true, QStringLiteral("Divide byte samples by 255 to get values in [0, 1]"))}
            + splitParams()));

    registry.add(dataset(
        QStringLiteral("dataset.csv"), QStringLiteral("CSV table"),
        QStringLiteral("Rows of a CSV file: numeric and categorical feature columns and one label or target column"),
        QStringLiteral("features"), QStringLiteral("target"),
        QList<ParamSpec>{
            pathParam(QStringLiteral("path"), QString(), QStringLiteral("The CSV file; relative paths are relative to the preset")),
            stringParam(QStringLiteral("target"), QString(),
                        QStringLiteral("Name of the label or target column (empty: the last column)")),
            stringParam(QStringLiteral("features"), QString(),
                        QStringLiteral("Comma-separated feature column names (empty: every other column)")),
            choiceParam(QStringLiteral("task"), QStringLiteral("classification"),
                        {QStringLiteral("classification"), QStringLiteral("regression")},
                        QStringLiteral("Classification maps each distinct label to a class; regression keeps numbers")),
            boolParam(QStringLiteral("standardize"), true,
                      QStringLiteral("Scale each numeric feature to zero mean and unit variance (training statistics)")),
            stringParam(QStringLiteral("categorical"), QString(),
                        QStringLiteral("Comma-separated feature columns read as categories (their distinct values), or auto: "
                                       "every feature column holding text (empty: none)")),
            choiceParam(QStringLiteral("encoding"), QStringLiteral("one_hot"), {QStringLiteral("one_hot"), QStringLiteral("ids")},
                        QStringLiteral("A category as one-hot features (one per category), or as one integer id (for an embedding)")),
            boolParam(QStringLiteral("drop_missing"), false,
                      QStringLiteral("Drop the rows with a missing value (empty, NA, N/A, NaN, null, ?) in a column used")),
            floatParam(QStringLiteral("test_fraction"), 0.2, 0.0, 0.9,
                       QStringLiteral("Share of the rows held out as the test split"))}
            + splitParams()));

    registry.add(dataset(
        QStringLiteral("dataset.text"), QStringLiteral("Text (characters)"),
        QStringLiteral("A UTF-8 text file as windows of characters (their ids in the file's character set), each "
                       "labelled with the character that follows: data for character-level sequence models"),
        QStringLiteral("characters"), QStringLiteral("next"),
        QList<ParamSpec>{
            pathParam(QStringLiteral("path"), QStringLiteral("/usr/share/dict/words"),
                      QStringLiteral("The text file; relative paths are relative to the preset")),
            intParam(QStringLiteral("window"), 32, 1, 4096, QStringLiteral("Characters per sample")),
            intParam(QStringLiteral("stride"), 1, 1, 1000000, QStringLiteral("Characters between the starts of two samples")),
            boolParam(QStringLiteral("lowercase"), false, QStringLiteral("Lower-case the text first (a smaller character set)")),
            floatParam(QStringLiteral("test_fraction"), 0.1, 0.0, 0.9,
                       QStringLiteral("Share of the windows held out as the test split"))}
            + splitParams()).yieldingTextWindows());

    registry.add(dataset(
        QStringLiteral("dataset.cifar"), QStringLiteral("CIFAR-10 / CIFAR-100"),
        QStringLiteral("The CIFAR-10 or CIFAR-100 binary files: 32x32 colour images in 10 or 100 classes (or CIFAR-100's 20 super-classes)"),
        QStringLiteral("images"), QStringLiteral("labels"),
        QList<ParamSpec>{
            pathParam(QStringLiteral("dir"), QString(),
                      QStringLiteral("Folder of data_batch_1.bin ... test_batch.bin (CIFAR-10) or train.bin and test.bin (CIFAR-100)")),
            choiceParam(QStringLiteral("variant"), QStringLiteral("auto"),
                        {QStringLiteral("auto"), QStringLiteral("cifar10"), QStringLiteral("cifar100")},
                        QStringLiteral("Which format the folder holds (auto: by its file names)")),
            choiceParam(QStringLiteral("labels"), QStringLiteral("fine"), {QStringLiteral("fine"), QStringLiteral("coarse")},
                        QStringLiteral("CIFAR-100: the 100 classes or the 20 super-classes"))}
            + splitParams()));

    registry.add(dataset(
        QStringLiteral("dataset.image_folder"), QStringLiteral("Image folder"),
        QStringLiteral("Your own images (PNG, JPEG, BMP): a folder with one sub-folder per class, optionally inside "
                       "train/, val/ and test/ folders; decoded on worker threads and cached"),
        QStringLiteral("images"), QStringLiteral("labels"),
        QList<ParamSpec>{pathParam(QStringLiteral("dir"), QString(),
                                   QStringLiteral("The folder of class folders (or of train/, val/, test/); relative paths are relative to the preset"))}
            + imageParams() + splitParams()));

    registry.add(dataset(
        QStringLiteral("dataset.image_list"), QStringLiteral("Image list (CSV)"),
        QStringLiteral("Images listed in a CSV file: a column of image paths, one of labels and optionally one of "
                       "splits (train, val, test)"),
        QStringLiteral("images"), QStringLiteral("labels"),
        QList<ParamSpec>{
            pathParam(QStringLiteral("path"), QString(), QStringLiteral("The CSV file; image paths in it are relative to its folder")),
            stringParam(QStringLiteral("image_column"), QString(), QStringLiteral("Name of the column of image paths (empty: the first)")),
            stringParam(QStringLiteral("label_column"), QString(), QStringLiteral("Name of the column of labels (empty: the second)")),
            stringParam(QStringLiteral("split_column"), QString(),
                        QStringLiteral("Name of a column saying each row's split: train, val or test (empty: none)"))}
            + imageParams() + splitParams()));

    registry.add(dataset(
        QStringLiteral("dataset.synthetic"), QStringLiteral("Synthetic data"),
        QStringLiteral("Generated data for tests and demos: gaussian blobs, spirals, a linear regression, or small pattern images"),
        QStringLiteral("features"), QStringLiteral("target"),
        QList<ParamSpec>{
            choiceParam(QStringLiteral("kind"), QStringLiteral("blobs"),
                        {QStringLiteral("blobs"), QStringLiteral("spirals"), QStringLiteral("regression"),
                         QStringLiteral("images")},
                        QStringLiteral("What to generate")),
            intParam(QStringLiteral("samples"), 2000, 10, 10000000, QStringLiteral("Number of training samples")),
            intParam(QStringLiteral("test_samples"), 500, 0, 10000000, QStringLiteral("Number of test samples")),
            intParam(QStringLiteral("features"), 8, 1, 100000,
                     QStringLiteral("Features per sample (blobs, regression); the image side for images")),
            intParam(QStringLiteral("classes"), 4, 2, 1000, QStringLiteral("Number of classes (blobs, spirals, images)")),
            floatParam(QStringLiteral("noise"), 0.1, 0.0, 100.0, QStringLiteral("Standard deviation of the added noise")),
            intParam(QStringLiteral("channels"), 1, 1, 64, QStringLiteral("Channels of each image (images; 3 for networks made for RGB)")),
            intParam(QStringLiteral("seed"), 0, 0, 2147483647.0, QStringLiteral("Seed of the generator")),
            stringParam(QStringLiteral("placeholder"), QString(),
                        QStringLiteral("Set by trainyard-cli import: this node stands in for the real data set, and validation warns until "
                                       "it is replaced (or this is cleared)"))}
            + splitParams()));
}

void addTransformBlocks(BlockRegistry &registry)
{
    registry.add(transform(QStringLiteral("transform.normalize"), QStringLiteral("Normalize"),
                           QStringLiteral("Subtracts a mean and divides by a standard deviation, per channel"),
                           {floatListParam(QStringLiteral("mean"), {0.0}, QStringLiteral("Mean, one value or one per channel")),
                            floatListParam(QStringLiteral("std"), {1.0},
                                           QStringLiteral("Standard deviation, one value or one per channel"))})
        .withNodeIdPrefix(QStringLiteral("norm")).takingDataStatistics());
    registry.add(transform(QStringLiteral("transform.random_hflip"), QStringLiteral("Random horizontal flip"),
                           QStringLiteral("Mirrors each training image left to right with probability p"),
                           {floatParam(QStringLiteral("p"), 0.5, 0.0, 1.0, QStringLiteral("Probability of a flip"))})
        .withNodeIdPrefix(QStringLiteral("flip")));
    registry.add(transform(QStringLiteral("transform.random_crop"), QStringLiteral("Random crop"),
                           QStringLiteral("Pads each training image with zeros, then crops it back at a random offset"),
                           {intParam(QStringLiteral("padding"), 4, 0, 1024, QStringLiteral("Zero padding on every side, in pixels"))})
        .withNodeIdPrefix(QStringLiteral("crop")));
    registry.add(transform(QStringLiteral("transform.gaussian_noise"), QStringLiteral("Gaussian noise"),
                           QStringLiteral("Adds zero-mean gaussian noise to training samples"),
                           {floatParam(QStringLiteral("std"), 0.1, 0.0, kInf, QStringLiteral("Standard deviation of the noise"))})
        .withNodeIdPrefix(QStringLiteral("noise")));
    registry.add(transform(
        QStringLiteral("transform.random_affine"), QStringLiteral("Random rotation, scale, shift"),
        QStringLiteral("Rotates, scales and shifts each training image by random amounts (0 fills what moves in); "
                       "place it before normalize"),
        {floatParam(QStringLiteral("degrees"), 10.0, 0.0, 180.0, QStringLiteral("Largest rotation either way, in degrees")),
         floatParam(QStringLiteral("translate"), 0.1, 0.0, 0.5, QStringLiteral("Largest shift either way, as a share of the width and height")),
         floatParam(QStringLiteral("scale_min"), 0.9, 0.1, 1.0, QStringLiteral("Smallest zoom factor")),
         floatParam(QStringLiteral("scale_max"), 1.1, 1.0, 10.0, QStringLiteral("Largest zoom factor"))}));
    registry.add(transform(
        QStringLiteral("transform.color_jitter"), QStringLiteral("Random brightness, contrast"),
        QStringLiteral("Multiplies each training sample's brightness and scales its contrast around its mean by random "
                       "factors in [1 - amount, 1 + amount]"),
        {floatParam(QStringLiteral("brightness"), 0.2, 0.0, 1.0, QStringLiteral("Brightness amount (0: unchanged)")),
         floatParam(QStringLiteral("contrast"), 0.2, 0.0, 1.0, QStringLiteral("Contrast amount (0: unchanged)")),
         boolParam(QStringLiteral("clamp"), true,
                   QStringLiteral("Clamp the result to [0, 1], for data before normalize; turn off after normalize"))}));
    registry.add(transform(
        QStringLiteral("transform.cutout"), QStringLiteral("Cutout"),
        QStringLiteral("Sets a square at a random place of each training image to 0, in every channel (cut by the border)"),
        {intParam(QStringLiteral("size"), 8, 1, 4096, QStringLiteral("Side of the square, in pixels")),
         floatParam(QStringLiteral("p"), 0.5, 0.0, 1.0, QStringLiteral("Probability that an image gets a square"))}));
}

} // namespace ty
