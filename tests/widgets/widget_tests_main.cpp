// Runs every test class of the widgets suite (tests/common/test_suite.h) with the offscreen platform (CTest sets
// QT_QPA_PLATFORM); settings go to a temporary folder.

#include "test_suite.h"

#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Trainyard"));
    QApplication::setApplicationName(QStringLiteral("trainyard-widget-tests"));
    QTemporaryDir settingsDir;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    return tytest::runRegisteredTests(argc, argv, "widgets");
}
