// Runs every test class of the widgets suite with the offscreen platform (CTest sets QT_QPA_PLATFORM);
// settings go to a temporary folder. Exits non-zero when any test function failed.

#include "widget_test_classes.h"

#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>
#include <QTextStream>

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Trainyard"));
    QApplication::setApplicationName(QStringLiteral("trainyard-widget-tests"));
    QTemporaryDir settingsDir;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());

    const struct {
        const char *name;
        int (*run)(int, char **);
    } suites[] = {
        {"document commands", tytest::runDocumentCommandTests},
        {"files and fragments", tytest::runFilesAndFragmentsTests},
        {"scene", tytest::runSceneTests},
        {"inspector", tytest::runInspectorTests},
        {"stages editor", tytest::runStagesEditorTests},
        {"bundled presets", tytest::runBundledPresetTests},
        {"main window", tytest::runMainWindowTests},
    };
    int failed = 0;
    QStringList failedSuites;
    for (const auto &suite : suites) {
        const int n = suite.run(argc, argv);
        if (n != 0) {
            failed += n;
            failedSuites << QStringLiteral("%1 (%2)").arg(QString::fromLatin1(suite.name)).arg(n);
        }
    }
    QTextStream err(stderr);
    if (failed == 0)
        err << "widgets: all test classes passed\n";
    else
        err << "widgets: failures in " << failedSuites.join(QStringLiteral(", ")) << "\n";
    return failed == 0 ? 0 : 1;
}
