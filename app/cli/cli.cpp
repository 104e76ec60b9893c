#include "cli.h"

#include "commands.h"
#include "json_io.h"
#include "preset_format.h"
#include "preset_overlay.h"
#include "preset_overrides.h"
#include "run_database.h"
#include "team_store.h"
#include "training_commands.h"

#include <QFileDevice>
#include <QIODevice>
#include <QJsonArray>
#include <QJsonDocument>

namespace ty::cli {

namespace {

const char *const kUsage =
    "usage: trainyard-cli COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  blocks [--json]                          list every block with its ports and parameters\n"
    "  validate PRESET [--overlay FILE]... [--set K=V]... [--json]\n"
    "                                           check a preset: issues, shapes, parameter counts\n"
    "  run PRESET [--overlay FILE]... [--set K=V]... [--init-from RUN[:last|best|STEP]|FILE] [--init-map NAME|JSON]\n"
    "      [--db PATH] [--name NAME] [--device auto|cpu|cuda] [--nproc N] [--note TEXT] [--tag TAG]... [--tensorboard DIR]\n"
    "      [--team URL] [--json|--events] [--quiet]\n"
    "                                           train a preset and record the run (and replicate it to a team store)\n"
    "  resume RUN_ID [--db PATH] [--nproc N] [--team URL] [--json|--events] [--quiet]\n"
    "                                           continue an interrupted, stopped or failed run from its last checkpoint\n"
    "  evaluate RUN_ID [--split test|val|train] [--checkpoint last|best|STEP] [--top K] [--mistakes N] [--db PATH] [--json]\n"
    "                                           a run's weights on a split: accuracy, per-class scores, confusion\n"
    "                                           matrix, most confident mistakes; stored in the run database\n"
    "  predict RUN_ID INPUT... [--checkpoint last|best|STEP] [--top K] [--db PATH] [--json]\n"
    "                                           classify images (PNG, JPEG, BMP), IDX files or CSV rows with a run's weights\n"
    "  predict RUN_ID --text TEXT [--generate N] [--temperature T] [--seed S] [--db PATH] [--json]\n"
    "                                           a text model's next characters after TEXT; --generate N continues it\n"
    "  augment PRESET --node ID [--seed S] [--sample I] [--count N] [--set K=V]... [--json]\n"
    "                                           variants of a training sample through the transform blocks up to ID,\n"
    "                                           drawn as training draws them (16 unless --count)\n"
    "  augment --serve                          the same as a worker: a JSON request a line on stdin, a reply a line\n"
    "  lrfind PRESET [--min LR] [--max LR] [--steps N] [--overlay FILE]... [--set K=V]... [--db PATH] [--json]\n"
    "                                           learning-rate range test: the loss against an exponentially growing\n"
    "                                           rate, and two suggested rates; recorded as a run of kind lrfind\n"
    "  runs list [--tag TAG]... [--kind train|lrfind] [--db PATH|--team URL] [--json]\n"
    "                                           the recorded runs, newest first (with every TAG given)\n"
    "  runs show ID [--db PATH|--team URL] [--json]\n"
    "                                           one run: status, preset, summary, checkpoints\n"
    "  runs metrics ID... [--metric NAME] [--db PATH|--team URL] [--csv|--json]\n"
    "                                           every metric row of a run; of several runs in long form\n"
    "  runs note ID TEXT [--db PATH]            set a run's notes (\"\" clears them)\n"
    "  runs tag ID TAG... [--remove] [--db PATH]\n"
    "                                           add tags to a run, or remove them\n"
    "  runs export ID... --tensorboard DIR [--db PATH]\n"
    "                                           each run's metrics as a TensorBoard event file in DIR/ID-NAME/\n"
    "  devices [--json]                         what the training engine can use: cpu, cuda (loads LibTorch)\n"
    "  sweep PRESET|SWEEP_FILE [--grid K=V1,V2,...]... [--random K=DIST]... [--trials N] [--parallel P]\n"
    "      [--metric NAME] [--maximize|--minimize] [--early-stop none|median|asha] [--seed S] [--db PATH]\n"
    "      [--team URL [--max-trials N] [--lease S]] [--json]\n"
    "                                           search settings: every trial is a run, P of them at once\n"
    "                                           (with --team: recorded on the team store, for workers anywhere)\n"
    "  sweep resume ID [--db PATH] [--json]     continue a stopped or interrupted sweep\n"
    "  sweep worker ID --team URL [--db PATH] [--parallel P] [--max-trials N] [--lease S] [--json]\n"
    "                                           claim and train a team sweep's trials, one at a time per slot\n"
    "  sweeps list|show ID [--db PATH|--team URL] [--json]\n"
    "                                           the recorded sweeps; one sweep's trials, best first\n"
    "  queue list|limit [N]|cancel ID|start ID|up ID|down ID [--db PATH] [--json]\n"
    "                                           runs waiting for a slot under the database's limit on runs at once\n"
    "  team push [--db PATH] [--team URL] [--json]\n"
    "                                           copy the database's runs to a team store (PostgreSQL; docs/team.md)\n"
    "  export RUN_ID --output FILE [--format safetensors|onnx] [--checkpoint last|best|STEP] [--db PATH] [--json]\n"
    "                                           a run's weights under their node names, or the model as ONNX\n"
    "  report RUN_ID|--sweep ID --html FILE [--db PATH]\n"
    "                                           a run's or a sweep's report: one self-contained HTML file\n"
    "  import MODEL.onnx --output NAME.trainyard.json [--force] [--json]\n"
    "                                           an ONNX model as a preset (its graph) and NAME.weights.safetensors\n"
    "\n"
    "--set addresses NODE_ID.PARAM or training.KEY, e.g. --set opt.lr=3e-4 --set training.epochs=20;\n"
    "--set NODE_ID.block=TYPE swaps a node's block. --overlay merges a JSON file over the preset first (RFC 7386).\n"
    "Exit codes: 0 success, 1 the run failed or diverged, 2 bad input or usage, 130 stopped.\n";

std::atomic<bool> ownStopFlag{false};
std::atomic<bool> *sharedStopFlag = &ownStopFlag;

} // namespace

std::atomic<bool> &stopFlag()
{
    return *sharedStopFlag;
}

void shareStopFlag(std::atomic<bool> *flag)
{
    sharedStopFlag = flag;
}

int runCli(const QStringList &arguments, Io &io)
{
    // A Ctrl-C or SIGTERM is kept until the command looks at it, however early it comes: main() installs the
    // handlers before this runs, so nothing here may clear the flag (in-process callers clear it between commands).
    if (arguments.isEmpty() || arguments.first() == QStringLiteral("--help") || arguments.first() == QStringLiteral("help")
        || arguments.first() == QStringLiteral("-h")) {
        (arguments.isEmpty() ? io.err : io.out) << kUsage;
        io.out.flush();
        io.err.flush();
        return arguments.isEmpty() ? BadInput : Success;
    }
    const QString command = arguments.first();
    const QStringList rest = arguments.mid(1);
    int code = BadInput;
    if (command == QStringLiteral("blocks"))
        code = blocksCommand(rest, io);
    else if (command == QStringLiteral("validate"))
        code = validateCommand(rest, io);
    else if (command == QStringLiteral("run") || command == QStringLiteral("resume") || command == QStringLiteral("evaluate")
             || command == QStringLiteral("predict") || command == QStringLiteral("augment")
             || command == QStringLiteral("lrfind"))
        code = trainingCommand(command, rest, io);
    else if (command == QStringLiteral("runs"))
        code = runsCommand(rest, io);
    else if (command == QStringLiteral("devices"))
        code = devicesCommand(rest, io);
    else if (command == QStringLiteral("sweep"))
        code = sweepCommand(rest, io);
    else if (command == QStringLiteral("sweeps"))
        code = sweepsCommand(rest, io);
    else if (command == QStringLiteral("queue"))
        code = queueCommand(rest, io);
    else if (command == QStringLiteral("export"))
        code = exportCommand(rest, io);
    else if (command == QStringLiteral("report"))
        code = reportCommand(rest, io);
    else if (command == QStringLiteral("import"))
        code = importCommand(rest, io);
    else if (command == QStringLiteral("team"))
        code = teamCommand(rest, io);
    else
        io.err << "trainyard-cli: unknown command \"" << command << "\"\n\n" << kUsage;
    io.out.flush();
    io.err.flush();
    return code;
}

bool loadPresetWithOverrides(const QString &path, const Args &args, Preset *preset, Io &io, QStringList *overlaySha256)
{
    Result<Preset> loaded = loadPresetWithOverlays(path, args.overlays, overlaySha256);
    if (!loaded) {
        reportError(loaded.error(), args, io);
        return false;
    }
    *preset = loaded.value();
    const Status applied = applyOverrides(preset, args.sets);
    if (!applied) {
        Error e = applied.error();
        e.file = path;
        reportError(e, args, io);
        return false;
    }
    return true;
}

QString databasePath(const Args &args)
{
    return args.options.contains(QStringLiteral("db")) ? args.option(QStringLiteral("db")) : RunDatabase::defaultPath();
}

void printError(Io &io, const Error &error)
{
    io.err << "error: " << error.toString() << "\n";
    io.err.flush();
}

void reportError(const Error &error, const Args &args, Io &io)
{
    printError(io, error);
    if (args.flag(QStringLiteral("events")))
        writeErrorEvent(io.out, error);
}

void writeErrorEvent(QTextStream &out, const Error &error)
{
    const QJsonObject event{{QStringLiteral("event"), QStringLiteral("error")}, {QStringLiteral("message"), error.message},
                            {QStringLiteral("file"), error.file}, {QStringLiteral("node"), error.node},
                            {QStringLiteral("field"), error.field}, {QStringLiteral("line"), error.line},
                            {QStringLiteral("column"), error.column}};
    out << QJsonDocument(event).toJson(QJsonDocument::Compact) << '\n';
    out.flush();
}

void printJson(Io &io, const QJsonValue &value)
{
    if (value.isArray())
        io.out << QJsonDocument(value.toArray()).toJson(QJsonDocument::Indented);
    else
        io.out << QJsonDocument(value.toObject()).toJson(QJsonDocument::Indented);
    io.out.flush();
}

JsonArrayPrinter::JsonArrayPrinter(Io &io) : m_io(io)
{
    m_pending = "[\n";
}

void JsonArrayPrinter::add(const QJsonObject &element)
{
    // QJsonDocument indents by four spaces a level: an element of the array is its own text one level deeper.
    const QByteArray text = QJsonDocument(element).toJson(QJsonDocument::Indented);
    m_pending += m_first ? "    " : ",\n    ";
    m_first = false;
    const qsizetype end = text.size() - 1;  // without the final newline
    qsizetype from = 0;
    for (qsizetype i = 0; i < end; ++i) {
        if (text.at(i) == '\n') {
            m_pending.append(text.constData() + from, i + 1 - from).append("    ", 4);
            from = i + 1;
        }
    }
    m_pending.append(text.constData() + from, end - from);
    if (m_pending.size() >= 64 * 1024)
        writePending();
}

void JsonArrayPrinter::finish()
{
    m_pending += m_first ? "]\n" : "\n]\n";
    writePending();
}

void JsonArrayPrinter::writePending()
{
    // The bytes as they are where the stream writes to a device (stdout): the text is UTF-8 already.
    m_io.out.flush();
    if (QIODevice *device = m_io.out.device()) {
        device->write(m_pending);
        if (auto *file = qobject_cast<QFileDevice *>(device))
            file->flush();  // trainyard-cli ends with _Exit: nothing may wait in QFile's buffer
    } else {
        m_io.out << QString::fromUtf8(m_pending);
        m_io.out.flush();
    }
    m_pending.clear();
}

} // namespace ty::cli
