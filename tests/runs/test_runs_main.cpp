// One Qt Test executable for core/runs: runs every test class of the folder (tests/common/test_suite.h).
// Started with TY_RUNS_TEST_CHILD set, it is instead a child writer process of TestRunProcesses.

#include "test_suite.h"

#include <QCoreApplication>

int runRunsChildProcess();

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (qEnvironmentVariableIsSet("TY_RUNS_TEST_CHILD"))
        return runRunsChildProcess();
    return tytest::runRegisteredTests(argc, argv, "runs");
}
