// Runs every test class of the training UI suite (offscreen: CTest sets QT_QPA_PLATFORM). Exits non-zero when
// any test function failed.

#include "training_ui_tests.h"

#include <QApplication>
#include <QTextStream>

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("trainyard-training-ui-tests"));
    const struct {
        const char *name;
        int (*run)(int, char **);
    } suites[] = {
        {"event stream parser", tytest::runEventStreamParserTests},
        {"metric plot", tytest::runMetricPlotTests},
        {"stage marks", tytest::runStageMarksTests},
        {"summarized graph", tytest::runSummarizedGraphTests},
        {"runs table model", tytest::runRunsTableModelTests},
        {"run browser", tytest::runRunBrowserTests},
        {"run lineage", tytest::runRunLineageTests},
        {"training controller", tytest::runTrainingControllerTests},
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
        err << "training ui: all test classes passed\n";
    else
        err << "training ui: failures in " << failedSuites.join(QStringLiteral(", ")) << "\n";
    return failed == 0 ? 0 : 1;
}
