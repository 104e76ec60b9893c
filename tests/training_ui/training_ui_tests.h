#pragma once
// The test classes of the training UI suite, run one after another by training_ui_main.cpp.

namespace tytest {
int runEventStreamParserTests(int argc, char **argv);
int runMetricPlotTests(int argc, char **argv);
int runStageMarksTests(int argc, char **argv);
int runSummarizedGraphTests(int argc, char **argv);
int runRunsTableModelTests(int argc, char **argv);
int runRunBrowserTests(int argc, char **argv);
int runRunLineageTests(int argc, char **argv);
int runTrainingControllerTests(int argc, char **argv);
} // namespace tytest
