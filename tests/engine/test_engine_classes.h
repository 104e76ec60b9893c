#pragma once
// The engine's test classes (one .cpp each).

#include <QObject>

class TestCompiler : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mlpEqualsHandBuiltSequential();
    void residualCnnEqualsHandBuiltFunctional();
    void transformsOnlyActWhileTraining();
    void randomCropKeepsShapeAndContent();
    void imageAugmentationsActOnTheBatch();
};

class TestShapes : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void bundledPresetsHaveNoIssues_data();
    void bundledPresetsHaveNoIssues();
    void bundledParameterTotals();
    void shapeMismatchIsPinnedToTheNode_data();
    void shapeMismatchIsPinnedToTheNode();
    void missingDataFileIsAnIssueOfTheDatasetNode();
    void issuesDownstreamOfABrokenNodeAreNotInvented();
    void joinErrorsNameTheirPort();
};

class TestShapeRules : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rulesMatchTheBuiltOps();
    void rejectedInputsNameTheCulprit_data();
    void rejectedInputsNameTheCulprit();
};

class TestTraining : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void optimizersLearnBlobs_data();
    void optimizersLearnBlobs();
    void regressionLossesLearn_data();
    void regressionLossesLearn();
    void cnnLearnsSyntheticImages();
    void attentionLearnsText();
    void bundledPresetsLearnOnSmallData_data();
    void bundledPresetsLearnOnSmallData();
    void streamingMatchesInMemory();
    void metricsHaveOneRowPerStep();
    void sameSeedGivesSameMetrics();
    void fusedAdamLeavesEveryMetricBitwise_data();
    void fusedAdamLeavesEveryMetricBitwise();
    void divergenceEndsTheRun();
    void stopRequestEndsWithACheckpoint();
    void earlyStoppingEndsBeforeTheLastEpoch();
    void schedulesFollowTheirFormulas();
    void reduceOnPlateauFollowsItsRule();
    void reduceOnPlateauLowersTheRate();
    void gradientClipping();
    void gradientAccumulationMatchesTheWholeBatch();
    void clippedTrainingBarelyMoves();
    void mixedPrecisionIsANoticeOnTheCpu();
    void cudaRequestWithoutCudaFails();
};

class TestCheckpoints : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTripRestoresWeightsOptimizerAndPosition();
    void truncatedCheckpointIsRefused();
    void foreignFileIsRefused();
    void checkpointOfAnotherPresetIsRefused();
    void checkpointIsPlainSafetensors();
    void hostileValuesAreRefusedChangingNothing_data();
    void hostileValuesAreRefusedChangingNothing();
    void optimizerStateRoundTrips_data();
    void optimizerStateRoundTrips();
    void resumedRunEqualsUninterrupted_data();
    void resumedRunEqualsUninterrupted();
};

class TestStages : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void frozenNodesKeepTheirWeightsAndStatistics();
    void overridesApplyFromTheStagesFirstStep();
    void resumeInsideALaterStageEqualsUninterrupted_data();
    void resumeInsideALaterStageEqualsUninterrupted();
    void earlyStoppingEndsOnlyTheStage();
    void warmStartCopiesExactlyTheRequestedTensors();
    void initFromFileStartsFromThoseWeights();
    void unrecordedCheckpointsDeleteNothing();
    void keptAndBestCheckpoints();
};

class TestEvaluation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void finishedRunIsScoredOnItsTestSplit();
    void weightsThatDoNotFitAreRefused();
    void regressionIsScoredByResiduals();
    void fashionMnistReportsItsClassNames();
};

class TestHeads : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void macroScoresOfASmallCase();
    void classMetricsAddUpOverBatches();
    void regressionMetricsAddUpOverBatches();
    void logProbabilityLossesAgreeWithCrossEntropy();
    void newHeadsTrain();
    void aucIsAMetricOfWholePasses();
};

class TestBlockRegistrations : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyNetworkKindHasABuilder();
    void everyLossHasALossFunction();
    void everyMetricHasAMetricFunction();
    void everyOptimizerHasAFactory();
    void everyScheduleHasALearningRateFunction();
    void unknownKindHasNoBuilder();
    void optimizerStateRulesMatchLibTorch_data();
    void optimizerStateRulesMatchLibTorch();
};
