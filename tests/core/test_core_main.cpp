// Runs every test class of the core suite (tests/common/test_suite.h).

#include "test_suite.h"

#include <QCoreApplication>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    return tytest::runRegisteredTests(argc, argv, "core");
}
