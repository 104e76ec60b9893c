#include "run_annotations.h"

#include "printable_text.h"
#include "run_database.h"

namespace ty::cli {

QString tagProblem(const QString &tag)
{
    const QString trimmed = tag.trimmed();
    if (trimmed.isEmpty())
        return QStringLiteral("a tag cannot be empty");
    if (trimmed.contains(QLatin1Char(',')))
        return QStringLiteral("a tag cannot contain a comma (the run browser edits tags as a comma-separated list)");
    if (trimmed.size() > 100)
        return QStringLiteral("a tag has at most 100 characters (this one has %1)").arg(trimmed.size());
    for (const QChar c : trimmed)
        if (c.category() == QChar::Other_Control)
            return QStringLiteral("a tag cannot contain control characters");
    return QString();
}

namespace {

bool checkTags(const QStringList &tags, Io &io)
{
    for (const QString &tag : tags)
        if (const QString problem = tagProblem(tag); !problem.isEmpty()) {
            io.err << "error: --tag \"" << printableExcerpt(tag, 40) << "\": " << problem << "\n";
            return false;
        }
    return true;
}

} // namespace

bool checkRunAnnotations(const Args &args, Io &io)
{
    return checkTags(args.lists.value(QStringLiteral("tag")), io);
}

bool annotateNewRun(RunDatabase &db, qint64 id, const Args &args, Io &io)
{
    const QStringList tags = args.lists.value(QStringLiteral("tag"));
    if (!tags.isEmpty())
        if (Status set = db.setTags(id, tags); !set) {
            printError(io, set.error());
            return false;
        }
    if (args.options.contains(QStringLiteral("note")))
        if (Status set = db.setNotes(id, args.option(QStringLiteral("note"))); !set) {
            printError(io, set.error());
            return false;
        }
    return true;
}

int noteCommand(RunDatabase &db, qint64 id, const Args &args, Io &io)
{
    const QString text = args.positionals.value(2);
    if (Status set = db.setNotes(id, text); !set) {
        printError(io, set.error());
        return BadInput;
    }
    io.out << (text.isEmpty() ? QStringLiteral("run %1: notes cleared\n").arg(id) : QStringLiteral("run %1: notes set\n").arg(id));
    return Success;
}

int tagCommand(RunDatabase &db, qint64 id, const Args &args, Io &io)
{
    const QStringList given = args.positionals.mid(2);
    if (!checkTags(given, io))
        return BadInput;
    Result<RunInfo> run = db.run(id);
    if (!run) {
        printError(io, run.error());
        return BadInput;
    }
    QStringList tags = run.value().tags;
    for (const QString &raw : given) {
        const QString tag = raw.trimmed();
        if (args.flag(QStringLiteral("remove")))
            tags.removeAll(tag);
        else if (!tags.contains(tag))
            tags << tag;
    }
    if (Status set = db.setTags(id, tags); !set) {
        printError(io, set.error());
        return BadInput;
    }
    tags.sort();
    io.out << QStringLiteral("run %1: tags %2\n").arg(id).arg(tags.isEmpty() ? QStringLiteral("(none)") : tags.join(QStringLiteral(", ")));
    return Success;
}

} // namespace ty::cli
