// Runs every test class of the training UI suite (tests/common/test_suite.h; offscreen: CTest sets
// QT_QPA_PLATFORM).

#include "test_suite.h"

#include <QApplication>

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("trainyard-training-ui-tests"));
    return tytest::runRegisteredTests(argc, argv, "training ui");
}
