// trainyard-cli blocks [--json]

#include "block_registry.h"
#include "commands.h"
#include "param_values.h"

#include <QJsonArray>

#include <cmath>

namespace ty::cli {

namespace {

// ", range 1..1000000" for numbers with bounds; empty otherwise.
QString rangeText(const ParamSpec &spec)
{
    const bool numeric = spec.type == ParamType::Int || spec.type == ParamType::Float || spec.type == ParamType::FloatList;
    if (!numeric || (!std::isfinite(spec.minimum) && !std::isfinite(spec.maximum)))
        return QString();
    auto bound = [](double v) { return std::isfinite(v) ? paramValueText(QJsonValue(v)) : QString(); };
    return QStringLiteral(", range %1..%2").arg(bound(spec.minimum), bound(spec.maximum));
}

} // namespace

int blocksCommand(const QStringList &arguments, Io &io)
{
    const Args args = parseArgs(arguments, {}, {QStringLiteral("json")});
    if (!args.error.isEmpty() || !args.positionals.isEmpty()) {
        io.err << "usage: trainyard-cli blocks [--json]\n";
        return BadInput;
    }
    const BlockRegistry &registry = BlockRegistry::builtin();
    if (args.flag(QStringLiteral("json"))) {
        QJsonArray blocks;
        for (const BlockDescriptor &block : registry.all())
            blocks.append(block.toJson());
        printJson(io, blocks);
        return Success;
    }
    QString category;
    for (const BlockDescriptor &block : registry.all()) {
        if (categoryName(block.category) != category) {
            category = categoryName(block.category);
            io.out << "\n" << category.toUpper() << "\n";
        }
        io.out << "  " << block.typeId << "  (" << block.displayName << ")  " << block.doc << "\n";
        auto ports = [&](const char *label, const QList<PortSpec> &list) {
            if (list.isEmpty())
                return;
            QStringList parts;
            for (const PortSpec &port : list)
                parts << QStringLiteral("%1:%2%3").arg(port.name, portKindName(port.kind),
                                                       port.required ? QString() : QStringLiteral("?"));
            io.out << "      " << label << parts.join(QStringLiteral(", ")) << "\n";
        };
        ports("in:  ", block.inputs);
        ports("out: ", block.outputs);
        for (const ParamSpec &spec : block.params)
            io.out << "      " << spec.name << " (" << paramTypeName(spec.type) << ", default "
                   << (paramValueText(spec.defaultValue).isEmpty() ? QStringLiteral("\"\"") : paramValueText(spec.defaultValue))
                   << (spec.choices.isEmpty() ? QString() : QStringLiteral(", one of ") + spec.choices.join(QLatin1Char('|')))
                   << rangeText(spec)
                   << "): " << spec.doc << "\n";
    }
    return Success;
}

} // namespace ty::cli
