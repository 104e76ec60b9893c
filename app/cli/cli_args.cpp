#include "cli_args.h"

namespace ty::cli {

Args parseArgs(const QStringList &arguments, const QStringList &valued, const QStringList &flagNames)
{
    Args args;
    for (int i = 0; i < arguments.size(); ++i) {
        const QString &a = arguments.at(i);
        if (!a.startsWith(QStringLiteral("--")) || a == QStringLiteral("--")) {
            args.positionals << a;
            continue;
        }
        QString name = a.mid(2);
        QString value;
        bool hasValue = false;
        const int eq = name.indexOf(QLatin1Char('='));
        if (eq > 0) {
            value = name.mid(eq + 1);
            name = name.left(eq);
            hasValue = true;
        }
        if (name == QStringLiteral("set") || valued.contains(name)) {
            if (!hasValue) {
                if (i + 1 >= arguments.size()) {
                    args.error = QStringLiteral("--%1 needs a value").arg(name);
                    return args;
                }
                value = arguments.at(++i);
            }
            if (name == QStringLiteral("set"))
                args.sets << value;
            else if (name == QStringLiteral("overlay"))
                args.overlays << value;
            else
                args.options.insert(name, value);
            args.lists[name] << value;
        } else if (flagNames.contains(name) && !hasValue) {
            args.flags << name;
        } else {
            args.error = QStringLiteral("unknown option --%1").arg(name);
            return args;
        }
    }
    return args;
}

} // namespace ty::cli
