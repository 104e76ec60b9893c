#include "training_commands.h"

#include "commands.h"
#include "run_data_prefetch.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QDir>
#include <QFileInfo>
#include <QLibrary>

namespace ty::cli {

namespace {

const TrainingCommands *chosenCommands = nullptr;

const TrainingCommands *loadModule(QString *error)
{
    const QDir appDir(QCoreApplication::applicationDirPath());
    const QString file = QString::fromLatin1(kTrainingModuleFile);
    const QStringList places{appDir.filePath(file), QDir::cleanPath(appDir.filePath(QStringLiteral("../lib/trainyard/") + file))};
    for (const QString &path : places) {
        if (!QFileInfo::exists(path))
            continue;
        QLibrary module(path);  // stays loaded: a QLibrary only unloads when asked to
        const auto entry = reinterpret_cast<TrainingModuleEntry>(module.resolve(kTrainingModuleEntry));
        if (!entry) {
            *error = module.errorString();
            return nullptr;
        }
        return entry(&stopFlag());
    }
    *error = QStringLiteral("%1 is missing (looked in %2)").arg(file, places.join(QStringLiteral(" and ")));
    return nullptr;
}

} // namespace

const TrainingCommands *trainingCommands(QString *error)
{
    if (!chosenCommands) {
        QString reason;
        chosenCommands = loadModule(&reason);
        if (error)
            *error = reason;
    }
    return chosenCommands;
}

void useTrainingCommands(const TrainingCommands *commands)
{
    chosenCommands = commands;
}

int devicesCommand(const QStringList &arguments, Io &io)
{
    const Args args = parseArgs(arguments, {}, {QStringLiteral("json")});
    if (!args.error.isEmpty() || !args.positionals.isEmpty()) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n")) << "usage: trainyard-cli devices [--json]\n";
        return BadInput;
    }
    QString reason;
    const TrainingCommands *commands = trainingCommands(&reason);
    if (!commands) {
        Error error;
        error.message = QStringLiteral("cannot list devices: the training engine did not load: %1").arg(reason);
        printError(io, error);
        return RunFailed;
    }
    const bool cuda = commands->cudaAvailable();
    const QString version = commands->torchVersion ? commands->torchVersion() : QString();
    QJsonArray devices{QStringLiteral("cpu")};
    if (cuda)
        devices.append(QStringLiteral("cuda"));
    if (args.flag(QStringLiteral("json")))
        printJson(io, QJsonObject{{QStringLiteral("torch_version"), version}, {QStringLiteral("cuda"), cuda}, {QStringLiteral("devices"), devices}});
    else
        io.out << "LibTorch " << version << "\n  cpu   available\n  cuda  " << (cuda ? "available" : "not available in this LibTorch build") << "\n";
    return Success;
}

namespace {

int runTrainingCommand(const TrainingCommands *commands, const QString &reason, const QString &command,
                       const QStringList &arguments, Io &io)
{
    if (!commands) {
        Error error;
        error.message = QStringLiteral("cannot %1: the training engine did not load: %2").arg(command, reason);
        printError(io, error);
        if (arguments.contains(QStringLiteral("--events")))
            writeErrorEvent(io.out, error);
        return RunFailed;
    }
    const CommandFunction function = command == QStringLiteral("run") ? commands->run
        : command == QStringLiteral("resume")                       ? commands->resume
        : command == QStringLiteral("evaluate")                     ? commands->evaluate
        : command == QStringLiteral("augment")                      ? commands->augment
        : command == QStringLiteral("lrfind")                       ? commands->lrfind
                                                                    : commands->predict;
    return function(arguments, io);
}

} // namespace

int trainingCommand(const QString &command, const QStringList &arguments, Io &io)
{
    // The data set decodes on a thread of its own while LibTorch loads with the module.
    if (command == QStringLiteral("run"))
        startRunDataPrefetch(arguments);
    QString reason;
    const TrainingCommands *commands = trainingCommands(&reason);
    if (commands && commands->setDatasetPrefetch)
        commands->setDatasetPrefetch(runDataPrefetch());
    const int code = runTrainingCommand(commands, reason, command, arguments, io);
    if (commands && commands->setDatasetPrefetch)
        commands->setDatasetPrefetch(DatasetPrefetch{});
    finishRunDataPrefetch();
    return code;
}

} // namespace ty::cli
