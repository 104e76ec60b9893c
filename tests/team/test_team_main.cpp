// The team suite: TestTeamPush (test_team_push.cpp) and TestTeamTraining (test_team_training.cpp).

#include "test_suite.h"

#include <QCoreApplication>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    return tytest::runRegisteredTests(argc, argv, "team");
}
