// The cli_scale suite: TestCliDistributed (test_cli_distributed.cpp) and TestCliSpeed (test_cli_speed.cpp).

#include "test_suite.h"

#include <QCoreApplication>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    return tytest::runRegisteredTests(argc, argv, "cli_scale");
}
