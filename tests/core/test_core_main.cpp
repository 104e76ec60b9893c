// Runs every test class of the core suite; exits non-zero when any test function failed.

#include "core_test_support.h"

#include <QCoreApplication>
#include <QTextStream>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const struct {
        const char *name;
        int (*run)(int, char **);
    } suites[] = {
        {"common", tytest::runCommonTests},
        {"block registry", tytest::runBlockRegistryTests},
        {"block parts", tytest::runBlockPartsTests},
        {"param values", tytest::runParamValuesTests},
        {"pipeline graph", tytest::runPipelineGraphTests},
        {"graph validation", tytest::runGraphValidationTests},
        {"graph order", tytest::runGraphOrderTests},
        {"preset format", tytest::runPresetFormatTests},
        {"preset overrides", tytest::runPresetOverridesTests},
        {"preset diff", tytest::runPresetDiffTests},
        {"evaluation scores", tytest::runEvaluationScoresTests},
        {"memory estimate", tytest::runMemoryEstimateTests},
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
        err << "core: all test classes passed\n";
    else
        err << "core: failures in " << failedSuites.join(QStringLiteral(", ")) << "\n";
    return failed == 0 ? 0 : 1;
}
