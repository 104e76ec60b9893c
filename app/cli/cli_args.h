#pragma once
// A small argument parser for the sub-commands: positionals, repeated --set and --overlay, flags and valued
// options.

#include <QMap>
#include <QStringList>

namespace ty::cli {

struct Args {
    QStringList positionals;
    QStringList sets;                 // every --set KEY=VALUE, in order
    QStringList overlays;             // every --overlay FILE, in order (commands naming "overlay" as valued)
    QMap<QString, QString> options;   // --db PATH, --name NAME, --device D, --metric NAME (the last one given)
    QMap<QString, QStringList> lists; // every value of each valued option, in order (--grid K=V,V --grid ...)
    QStringList flags;                // --json, --csv, --events
    QString error;                    // usage problem, if any

    bool flag(const QString &name) const { return flags.contains(name); }
    QString option(const QString &name) const { return options.value(name); }
};

// `valued`: option names that take a value (without dashes); `flagNames`: options without one.
Args parseArgs(const QStringList &arguments, const QStringList &valued, const QStringList &flagNames);

} // namespace ty::cli
