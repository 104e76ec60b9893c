#include "bench_arguments.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>
#include <cstdlib>

namespace ty::bench {

namespace {

[[noreturn]] void refuse(const QCommandLineParser &parser, const QString &message)
{
    std::fprintf(stderr, "%s: %s\n\n%s", qPrintable(QCoreApplication::applicationName()), qPrintable(message),
                 qPrintable(parser.helpText()));
    std::exit(2);
}

} // namespace

Arguments parseArguments(const QStringList &sections, bool withDevice)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Measures the figures of docs/benchmarks.md and prints them as one table; "
                                                    "exits 1 when a target is missed."));
    parser.addHelpOption();
    const QCommandLineOption quick(QStringLiteral("quick"), QStringLiteral("Fewer steps and repeats: a smoke run."));
    const QCommandLineOption markdown(QStringLiteral("markdown"), QStringLiteral("Print the table as Markdown."));
    const QCommandLineOption only(QStringLiteral("only"), QStringLiteral("Run one section: %1.").arg(sections.join(QStringLiteral(", "))),
                                  QStringLiteral("section"));
    const QCommandLineOption device(QStringLiteral("device"), QStringLiteral("Training throughput on cpu (default) or cuda."),
                                    QStringLiteral("device"), QStringLiteral("cpu"));
    parser.addOptions({quick, markdown, only});
    if (withDevice)
        parser.addOption(device);
    if (!parser.parse(QCoreApplication::arguments()))
        refuse(parser, parser.errorText());
    if (parser.isSet(QStringLiteral("help")) || parser.isSet(QStringLiteral("help-all"))) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        std::exit(0);
    }
    if (!parser.positionalArguments().isEmpty())
        refuse(parser, QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().constFirst()));
    Arguments arguments;
    arguments.quick = parser.isSet(quick);
    arguments.markdown = parser.isSet(markdown);
    arguments.section = parser.value(only);
    if (parser.isSet(only) && !sections.contains(arguments.section))
        refuse(parser, QStringLiteral("unknown section '%1' for --only; the sections are %2")
                           .arg(arguments.section, sections.join(QStringLiteral(", "))));
    if (withDevice) {
        arguments.device = parser.value(device);
        if (arguments.device != QLatin1String("cpu") && arguments.device != QLatin1String("cuda"))
            refuse(parser, QStringLiteral("unknown device '%1' for --device: cpu or cuda").arg(arguments.device));
    }
    return arguments;
}

} // namespace ty::bench
