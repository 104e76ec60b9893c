// Several processes on one database file: each child (this executable, started again with TY_RUNS_TEST_CHILD set)
// opens the file (possibly creating and migrating it at the same moment as the others), creates a run and writes
// its rows; none may fail with "database is locked" and no row may be lost.

#include "test_suite.h"
#include "run_database.h"
#include "run_writer.h"
#include "test_runs_support.h"

#include <QCoreApplication>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>
#include <memory>
#include <vector>

using namespace ty;

namespace {
const char kChildVariable[] = "TY_RUNS_TEST_CHILD";  // "<db path>|<rows>"
constexpr int kChildren = 3;
constexpr int kRowsPerChild = 30000;
} // namespace

// The child's side; returns the exit code. Prints the run id on stdout, errors on stderr.
int runRunsChildProcess()
{
    const QStringList parts = qEnvironmentVariable(kChildVariable).split(QLatin1Char('|'));
    if (parts.size() != 2)
        return 2;
    const QString path = parts.at(0);
    const int rows = parts.at(1).toInt();
    auto fail = [](const Error &error) {
        std::fprintf(stderr, "%s\n", qPrintable(error.toString()));
        return 1;
    };
    auto opened = RunDatabase::open(path);
    if (!opened.ok())
        return fail(opened.error());
    auto created = opened.value()->createRun(testing::sampleNewRun(QStringLiteral("child")));
    if (!created.ok())
        return fail(created.error());
    RunWriter writer(path, created.value(), 3);
    if (Status started = writer.start(); !started.ok())
        return fail(started.error());
    for (int chunk = 0; chunk < rows; chunk += 100) {
        QList<MetricPoint> points;
        for (int step = chunk; step < chunk + 100 && step < rows; ++step)
            points.append({QStringLiteral("loss"), step, 0, 0, double(step)});
        writer.appendMetrics(points);
        if (chunk % 3000 == 0) {
            // Write from the process's main connection too, while the writer thread writes.
            if (Status noted = opened.value()->setNotes(created.value(), QString::number(chunk)); !noted.ok())
                return fail(noted.error());
        }
    }
    if (Status finished = writer.finish(RunStatus::Finished); !finished.ok())
        return fail(finished.error());
    std::printf("%lld\n", static_cast<long long>(created.value()));
    return 0;
}

class TestRunProcesses : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void processesShareOneFile();
};

void TestRunProcesses::processesShareOneFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("shared/runs.sqlite"));  // does not exist yet
    std::vector<std::unique_ptr<QProcess>> children;
    for (int i = 0; i < kChildren; ++i) {
        auto child = std::make_unique<QProcess>();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QString::fromLatin1(kChildVariable), QStringLiteral("%1|%2").arg(path).arg(kRowsPerChild));
        child->setProcessEnvironment(env);
        child->start(QCoreApplication::applicationFilePath(), {});
        children.push_back(std::move(child));
    }
    QList<qint64> ids;
    for (auto &child : children) {
        QVERIFY(child->waitForFinished(300000));
        const QByteArray errors = child->readAllStandardError();
        QVERIFY2(child->exitStatus() == QProcess::NormalExit && child->exitCode() == 0, errors.constData());
        ids << child->readAllStandardOutput().trimmed().toLongLong();
    }
    auto opened = RunDatabase::open(path);
    QVERIFY(opened.ok());
    RunDatabase &db = *opened.value();
    QCOMPARE(db.listRuns().value().size(), kChildren);
    for (qint64 id : ids) {
        QVERIFY(id > 0);
        QCOMPARE(db.run(id).value().status, RunStatus::Finished);
        QCOMPARE(db.metrics(id).value().size(), kRowsPerChild);
        QCOMPARE(db.lastMetricValues(id).value().value(QStringLiteral("loss")), double(kRowsPerChild - 1));
    }
}

TY_TEST_CLASS(TestRunProcesses)

#include "test_run_processes.moc"
