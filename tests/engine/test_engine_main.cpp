// Runs every engine test class (tests/common/test_suite.h).

#include "host_memory.h"
#include "test_engine_classes.h"
#include "test_suite.h"

#include <QCoreApplication>

TY_TEST_CLASS(TestCompiler)
TY_TEST_CLASS(TestShapes)
TY_TEST_CLASS(TestShapeRules)
TY_TEST_CLASS(TestTraining)
TY_TEST_CLASS(TestCheckpoints)
TY_TEST_CLASS(TestStages)
TY_TEST_CLASS(TestEvaluation)
TY_TEST_CLASS(TestHeads)
TY_TEST_CLASS(TestBlockRegistrations)

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    ty::installLargeBlockCache();  // as the training module does: every engine test trains through it
    return tytest::runRegisteredTests(argc, argv, "engine");
}
