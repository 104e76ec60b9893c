#pragma once
// The command line of trainyard-bench and trainyard-bench-gui: --help prints the usage; an unknown option, a
// missing value or an unknown section is refused (exit 2) instead of running every section or none.

#include <QString>
#include <QStringList>

namespace ty::bench {

struct Arguments {
    bool quick = false;
    bool markdown = false;
    QString device = QStringLiteral("cpu");
    QString section;  // empty: every section
};

// Parses the application's arguments. `sections` are the names --only accepts; `withDevice` offers --device.
// Prints the usage and exits 0 for --help, prints the error and exits 2 for a bad command line.
Arguments parseArguments(const QStringList &sections, bool withDevice);

} // namespace ty::bench
