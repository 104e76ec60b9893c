// Run bundles at the command line, as a user types them: a sweep of two trials and a run started from one of its
// trials are exported (`sweeps export`, `runs export --bundle`), imported into a database that already has a run
// (`runs import`), and then read back with `runs show`, `sweeps show` and `evaluate` there; a second import adds
// nothing; a damaged bundle exits 2 and creates no database; an unknown id or a running run writes no bundle.
// Row-by-row equality is TestRunBundle's (tests/runs).

#include "blobs_preset.h"
#include "program_run.h"
#include "test_suite.h"

#include "run_database.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;

namespace {

QJsonObject json(const tytest::CliOutput &output) { return QJsonDocument::fromJson(output.out.toUtf8()).object(); }

QStringList words(const QString &text) { return text.split(QLatin1Char(' '), Qt::SkipEmptyParts); }

// The real trainyard-cli, as a user types it (this suite does not link the training engine).
tytest::CliOutput trainyardProcess(const QStringList &arguments)
{
    tytest::ProgramOptions options;
    options.timeoutMs = 120000;
    return tytest::runProgram(QStringLiteral(TRAINYARD_CLI), arguments, options);
}

} // namespace

class TestCliBundles : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qputenv("TRAINYARD_CLI", TRAINYARD_CLI); }

    void sweepAndChildTravelToAnotherDatabase()
    {
        QTemporaryDir dir;
        const QString preset = tytest::writeBlobsPreset(dir, 2);
        const QString laptop = dir.filePath(QStringLiteral("laptop.sqlite"));
        const QString server = dir.filePath(QStringLiteral("server.sqlite"));
        auto on = [&](const QString &db, const QString &command) { return trainyardProcess(words(command) << QStringLiteral("--db") << db); };

        const tytest::CliOutput sweep = on(laptop, QStringLiteral("sweep %1 --grid opt.lr=0.003,0.03 --metric val/accuracy --quiet").arg(preset));
        QVERIFY2(sweep.code == 0, qPrintable(sweep.out + sweep.err));
        const tytest::CliOutput child = on(laptop, QStringLiteral("run %1 --init-from 2 --tag travelled --note carried").arg(preset));
        QVERIFY2(child.code == 0, qPrintable(child.out + child.err));
        QCOMPARE(on(server, QStringLiteral("run %1").arg(preset)).code, 0);  // the server's own run 1

        const QString sweepBundle = dir.filePath(QStringLiteral("sweep.tybundle"));
        const QString childBundle = dir.filePath(QStringLiteral("child.tybundle"));
        const tytest::CliOutput sweepExport = on(laptop, QStringLiteral("sweeps export 1 --bundle %1").arg(sweepBundle));
        QVERIFY2(sweepExport.code == 0, qPrintable(sweepExport.err));
        QVERIFY2(sweepExport.out.contains(QStringLiteral("2 runs (1, 2), sweep 1")), qPrintable(sweepExport.out));
        QCOMPARE(on(laptop, QStringLiteral("runs export 3 --bundle %1").arg(childBundle)).code, 0);

        // The child first: its parent is not on the server yet, so it keeps the parent's uuid, not an id.
        const tytest::CliOutput first = on(server, QStringLiteral("runs import %1 --json").arg(childBundle));
        QVERIFY2(first.code == 0, qPrintable(first.err));
        const QJsonObject firstRun = json(first).value(QStringLiteral("runs")).toArray().first().toObject();
        QCOMPARE(firstRun.value(QStringLiteral("bundle_id")).toInt(), 3);
        QCOMPARE(firstRun.value(QStringLiteral("id")).toInt(), 3);  // free on the server: kept
        const QJsonObject childParent = json(on(server, QStringLiteral("runs show 3 --json"))).value(QStringLiteral("parent")).toObject();
        QVERIFY2(!childParent.contains(QStringLiteral("run")), qPrintable(QJsonDocument(childParent).toJson()));
        const QString parentUuid = json(on(laptop, QStringLiteral("runs show 2 --json"))).value(QStringLiteral("uuid")).toString();
        QCOMPARE(childParent.value(QStringLiteral("run_uuid")).toString(), parentUuid);
        const tytest::CliOutput childShown = on(server, QStringLiteral("runs show 3"));
        QVERIFY2(childShown.out.contains(QStringLiteral("of another run database (uuid %1), not here").arg(parentUuid)), qPrintable(childShown.out));

        // Then the sweep: run 1 clashes with the server's own, run 2 is free.
        const tytest::CliOutput imported = on(server, QStringLiteral("runs import %1").arg(sweepBundle));
        QVERIFY2(imported.code == 0, qPrintable(imported.err));
        QVERIFY2(imported.out.contains(QStringLiteral("imported 2 of 2 runs and 1 of 1 sweep")), qPrintable(imported.out));
        QVERIFY2(imported.out.contains(QStringLiteral("run 4 added (run 1 in the bundle)")), qPrintable(imported.out));
        QVERIFY2(imported.out.contains(QStringLiteral("run 2 added  ")), qPrintable(imported.out));
        const QJsonObject there = json(on(server, QStringLiteral("sweeps show 1 --json")));
        const QJsonObject here = json(on(laptop, QStringLiteral("sweeps show 1 --json")));
        QCOMPARE(there.value(QStringLiteral("uuid")), here.value(QStringLiteral("uuid")));
        QCOMPARE(there.value(QStringLiteral("status")).toString(), QStringLiteral("finished"));
        QCOMPARE(there.value(QStringLiteral("trials")).toArray().size(), 2);
        for (const QJsonValue &trial : there.value(QStringLiteral("trials")).toArray()) {
            const int index = trial.toObject().value(QStringLiteral("trial")).toInt();
            const int run = trial.toObject().value(QStringLiteral("run")).toInt();
            QCOMPARE(run, index == 0 ? 4 : 2);
            for (const QJsonValue &mine : here.value(QStringLiteral("trials")).toArray()) {
                if (mine.toObject().value(QStringLiteral("trial")).toInt() == index)
                    QCOMPARE(trial.toObject().value(QStringLiteral("value")), mine.toObject().value(QStringLiteral("value")));
            }
        }
        // The child's weights travelled: it evaluates on the server as on the laptop.
        const tytest::CliOutput evaluated = on(server, QStringLiteral("evaluate 3 --json"));
        QVERIFY2(evaluated.code == 0, qPrintable(evaluated.err));
        QCOMPARE(json(evaluated).value(QStringLiteral("accuracy")), json(on(laptop, QStringLiteral("evaluate 3 --json"))).value(QStringLiteral("accuracy")));
        const QJsonObject shown = json(on(server, QStringLiteral("runs show 3 --json")));
        QCOMPARE(shown.value(QStringLiteral("tags")).toArray(), QJsonArray{QStringLiteral("travelled")});
        QCOMPARE(shown.value(QStringLiteral("notes")).toString(), QStringLiteral("carried"));

        // Again: nothing added.
        const tytest::CliOutput again = on(server, QStringLiteral("runs import %1").arg(sweepBundle));
        QCOMPARE(again.code, 0);
        QVERIFY2(again.out.contains(QStringLiteral("imported 0 of 2 runs and 0 of 1 sweep")), qPrintable(again.out));
        QCOMPARE(RunDatabase::open(server).value()->listRuns().value().size(), 4);
    }

    void badBundlesAndIdsAreRefused()
    {
        QTemporaryDir dir;
        const QString preset = tytest::writeBlobsPreset(dir, 1);
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        QCOMPARE(trainyardProcess({QStringLiteral("run"), preset, QStringLiteral("--db"), db}).code, 0);
        const QString bundle = dir.filePath(QStringLiteral("b.tybundle"));
        const tytest::CliOutput unknown = trainyardProcess({QStringLiteral("runs"), QStringLiteral("export"), QStringLiteral("1"), QStringLiteral("7"),
                                                     QStringLiteral("--bundle"), bundle, QStringLiteral("--db"), db});
        QCOMPARE(unknown.code, 2);
        QVERIFY2(unknown.err.contains(QStringLiteral("no run with id 7")), qPrintable(unknown.err));
        QVERIFY(!QFileInfo::exists(bundle));
        QCOMPARE(trainyardProcess({QStringLiteral("runs"), QStringLiteral("export"), QStringLiteral("1"), QStringLiteral("--bundle"), bundle,
                            QStringLiteral("--db"), db}).code,
                 0);

        QFile file(bundle);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QByteArray bytes = file.readAll();
        bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 1);
        file.seek(0);
        file.write(bytes);
        file.close();
        const QString fresh = dir.filePath(QStringLiteral("fresh.sqlite"));
        const tytest::CliOutput refused = trainyardProcess({QStringLiteral("runs"), QStringLiteral("import"), bundle, QStringLiteral("--db"), fresh});
        QCOMPARE(refused.code, 2);
        QVERIFY2(refused.err.contains(bundle) && refused.err.contains(QStringLiteral("sha256 does not match")), qPrintable(refused.err));
        QVERIFY(!QFileInfo::exists(fresh));
        const tytest::CliOutput notABundle = trainyardProcess({QStringLiteral("runs"), QStringLiteral("import"), preset, QStringLiteral("--db"), fresh});
        QCOMPARE(notABundle.code, 2);
        QVERIFY2(notABundle.err.contains(QStringLiteral("is not a Trainyard run bundle")), qPrintable(notABundle.err));
        const tytest::CliOutput both = trainyardProcess({QStringLiteral("runs"), QStringLiteral("export"), QStringLiteral("1"), QStringLiteral("--bundle"),
                                                  bundle, QStringLiteral("--tensorboard"), dir.path(), QStringLiteral("--db"), db});
        QCOMPARE(both.code, 2);
    }
};

TY_TEST_CLASS(TestCliBundles)
#include "test_cli_bundles.moc"
