// One Qt Test executable for core/runs: runs every suite of the folder and fails when any fails.
// Started with TY_RUNS_TEST_CHILD set, it is instead a child writer process of TestRunProcesses.

#include <QCoreApplication>

int runRunDatabaseTests(int argc, char **argv);
int runRunSchemaTests(int argc, char **argv);
int runRunWriterTests(int argc, char **argv);
int runRunWriterFaultsTests(int argc, char **argv);
int runRunStalenessTests(int argc, char **argv);
int runRunSqliteClientTests(int argc, char **argv);
int runRunProcessesTests(int argc, char **argv);
int runRunSummariesTests(int argc, char **argv);
int runRunsChildProcess();

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (qEnvironmentVariableIsSet("TY_RUNS_TEST_CHILD"))
        return runRunsChildProcess();
    int failed = 0;
    failed += runRunDatabaseTests(argc, argv) != 0;
    failed += runRunSchemaTests(argc, argv) != 0;
    failed += runRunWriterTests(argc, argv) != 0;
    failed += runRunWriterFaultsTests(argc, argv) != 0;
    failed += runRunStalenessTests(argc, argv) != 0;
    failed += runRunSqliteClientTests(argc, argv) != 0;
    failed += runRunProcessesTests(argc, argv) != 0;
    failed += runRunSummariesTests(argc, argv) != 0;
    return failed;
}
