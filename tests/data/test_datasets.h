#pragma once
// One Qt Test class for core/data; its slots are defined in test_idx.cpp, test_fashion_mnist.cpp,
// test_csv.cpp, test_synthetic.cpp, test_split.cpp, test_keep_classes.cpp, test_safetensors.cpp,
// test_text.cpp, test_model_inputs.cpp, test_image_datasets.cpp and test_cifar.cpp.

#include <QObject>
#include <QTemporaryDir>

class TestDatasets : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // IDX files (test_idx.cpp)
    void idxRoundTrip_data();
    void idxRoundTrip();
    void idxDatasetLoads_data();
    void idxDatasetLoads();
    void idxTwoDimensionalSamples();
    void idxErrors_data();
    void idxErrors();
    void idxRequiredFields_data();
    void idxRequiredFields();
    void idxDescribeReadsHeadersOnly();
    void idxDamagedFilesNeverCrash_data();
    void idxDamagedFilesNeverCrash();
    void idxGzipClaimingMoreThanItHoldsStaysSmall();

    // Fashion-MNIST (test_fashion_mnist.cpp)
    void fashionFixture();
    void fashionMissingFile();
    void fashionLabelOutOfRange();
    void fashionReal();

    // CSV tables (test_csv.cpp)
    void csvClassification();
    void csvNumericLabelsSortNumerically();
    void csvRegression();
    void csvStandardizeUsesTrainStatistics();
    void csvHeaderlessAndQuoted();
    void csvErrors_data();
    void csvErrors();
    void csvCategoricalColumnsAndMissingValues();

    // Synthetic data (test_synthetic.cpp)
    void syntheticDeterminism_data();
    void syntheticDeterminism();
    void syntheticShapes_data();
    void syntheticShapes();
    void syntheticColourImages();
    void syntheticGoldenValues();
    void syntheticLearnable_data();
    void syntheticLearnable();
    void syntheticRegressionIsLinear();
    void syntheticParamErrors_data();
    void syntheticParamErrors();

    // Splits (test_split.cpp)
    void splitSizes_data();
    void splitSizes();
    void splitIsDeterministicAndDisjoint();
    void describeCountsTheLoadedSamples_data();
    void describeCountsTheLoadedSamples();
    void emptyTrainingSplit_data();
    void emptyTrainingSplit();
    void badParameterTypes();
    void unknownBlock();
    void keepClasses();
    void keepRowsInPlaceMatchesGathering();
    // Data sets loaded ahead (test_prefetch.cpp)
    void prefetchedDatasetIsTakenOnceForItsRequest();
    void prefetchReleaseAndRemoval();

    // Kept classes on every kind (test_keep_classes.cpp)
    void keepClassesFashionNamesAndSizes();
    void keepClassesSyntheticMatchesFilteringByHand();
    void keepClassesCsvByLabel();
    void keepClassesErrors_data();
    void keepClassesErrors();
    void keepClassesFashionReal();

    // safetensors files (test_safetensors.cpp)
    void safetensorsRoundTrip();
    void safetensorsWrittenByHand();
    void safetensorsDamagedFilesNeverCrash_data();
    void safetensorsDamagedFilesNeverCrash();
    void safetensorsFindsNonFiniteValues();
    void safetensorsOnlyRegularFilesOfBoundedSize();

    // Text files as characters (test_text.cpp)
    void textWindowsAndLabels();
    void textSplitsAreDisjointAndSeeded();
    void textLowercaseAndCharacterNames();
    void textErrors_data();
    void textErrors();
    void textRefusesKeptClasses();
    void textOnlyFromRegularFiles();

    // new inputs for a trained model (test_model_inputs.cpp)
    void imageInputsTakeTheModelsShape();
    void imageClaimingMorePixelsThanItHoldsIsRefused();
    void modelInputsStreamInPieces();
    // image folders and lists (test_image_datasets.cpp)
    void imageFolderClassesAndPixels();
    void imageFolderSplitFolders();
    void imageFolderTestFractionIsSeeded();
    void imageFolderColourAndFit();
    void imageFolderErrors_data();
    void imageFolderErrors();
    void imageListRowsAndSplits();
    void imageListErrors_data();
    void imageListErrors();
    void imageDecodingThreadsAndCache();
    void imageStoreMatchesTheInMemoryDecode();
    void imageScriptMatchesFashionMnist();
    // CIFAR binary files (test_cifar.cpp)
    void cifar10Records();
    void cifar100CoarseAndFine();
    void cifarDamagedFiles_data();
    void cifarDamagedFiles();
    void datasetSummaryCountsAndStatistics();
    void checkpointPositionIsReadWithoutLibTorch();
    void checkpointPositionRefusesInconsistencies_data();
    void checkpointPositionRefusesInconsistencies();

private:
    QTemporaryDir m_dir;
};
