#pragma once
// Running a program to its end from a test (the real trainyard-cli as a user types it, ONNX's checker, node):
// its exit code, stdout and stderr.

#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace tytest {

struct CliOutput {
    int code = -1;  // -1: it did not start, crashed, or ran past the time limit
    QString out, err;
};

struct ProgramOptions {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    QString stdoutFile;  // stdout goes to this file, as `> file` sends it, and is read back from it; empty: a pipe
    int timeoutMs = -1;  // killed after this long; -1: no limit
};

inline CliOutput runProgram(const QString &program, const QStringList &arguments, const ProgramOptions &options = {})
{
    QProcess process;
    process.setProcessEnvironment(options.environment);
    if (!options.stdoutFile.isEmpty())
        process.setStandardOutputFile(options.stdoutFile);
    process.start(program, arguments);
    CliOutput o;
    if (!process.waitForStarted(-1)) {
        o.err = program + QStringLiteral(" did not start: ") + process.errorString();
        return o;
    }
    if (!process.waitForFinished(options.timeoutMs)) {
        process.kill();
        process.waitForFinished(-1);
    } else if (process.exitStatus() == QProcess::NormalExit) {
        o.code = process.exitCode();
    }
    QFile written(options.stdoutFile);
    o.out = QString::fromUtf8(options.stdoutFile.isEmpty() ? process.readAllStandardOutput()
                              : written.open(QIODevice::ReadOnly) ? written.readAll() : QByteArray());
    o.err = QString::fromUtf8(process.readAllStandardError());
    return o;
}

} // namespace tytest
