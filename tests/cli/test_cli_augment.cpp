// `trainyard-cli augment --serve`, the augmentation preview's long-lived worker, as the real executable: requests
// with different seeds get different variants, each the same as the one-shot `augment --json` draws for its seed
// (from a preset file or inline), the data set loaded and the preset compiled once for all of them (the replies'
// counts); a bad request gets an error naming its field and the next good one is answered; closing stdin ends the
// worker.

#include "augmented_images_preset.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

QJsonObject request(int id, const QString &presetFile, const QJsonValue &seed)
{
    return QJsonObject{{QStringLiteral("id"), id}, {QStringLiteral("preset_file"), presetFile}, {QStringLiteral("node"), QStringLiteral("flip")},
                       {QStringLiteral("seed"), seed}, {QStringLiteral("sample"), 3}};
}

} // namespace

class TestCliAugment : public QObject {
    Q_OBJECT

    QTemporaryDir dir;
    QString presetFile;

    void startWorker(QProcess &worker)
    {
        worker.start(QStringLiteral(TRAINYARD_CLI), {QStringLiteral("augment"), QStringLiteral("--serve")});
        QVERIFY(worker.waitForStarted(30000));
    }

    static void send(QProcess &worker, const QByteArray &line) { worker.write(line + '\n'); }
    static void send(QProcess &worker, const QJsonObject &request) { send(worker, QJsonDocument(request).toJson(QJsonDocument::Compact)); }

    // The next reply line, as an object (empty when none came in 120 s).
    static QJsonObject reply(QProcess &worker)
    {
        while (!worker.canReadLine())
            if (!worker.waitForReadyRead(120000))
                return {};
        return QJsonDocument::fromJson(worker.readLine()).object();
    }

    // `augment --json` for one seed, the one-shot command.
    QJsonObject oneShot(const QString &seed)
    {
        QProcess process;
        process.start(QStringLiteral(TRAINYARD_CLI), {QStringLiteral("augment"), presetFile, QStringLiteral("--node"), QStringLiteral("flip"),
                                                      QStringLiteral("--seed"), seed, QStringLiteral("--sample"), QStringLiteral("3"),
                                                      QStringLiteral("--json")});
        if (!process.waitForFinished(120000) || process.exitCode() != 0)
            return {};
        return QJsonDocument::fromJson(process.readAllStandardOutput()).object();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(dir.isValid());
        presetFile = dir.filePath(QStringLiteral("augmented.trainyard.json"));
        QFile file(presetFile);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(tytest::kAugmentedImagesPreset);
    }

    void answersEachSeedAsTheOneShotCommand()
    {
        QProcess worker;
        startWorker(worker);
        send(worker, request(1, presetFile, 5));
        send(worker, request(2, presetFile, QStringLiteral("6")));
        QJsonObject inlined = request(3, QString(), 5);
        inlined.remove(QStringLiteral("preset_file"));
        inlined.insert(QStringLiteral("preset"), QJsonDocument::fromJson(tytest::kAugmentedImagesPreset).object());
        send(worker, inlined);
        const QJsonObject five = reply(worker), six = reply(worker), fiveInline = reply(worker);
        QCOMPARE(five.value(QStringLiteral("id")).toInt(), 1);
        QCOMPARE(six.value(QStringLiteral("id")).toInt(), 2);
        QCOMPARE(fiveInline.value(QStringLiteral("id")).toInt(), 3);
        const QJsonArray variants = five.value(QStringLiteral("variants")).toArray();
        QCOMPARE(variants.size(), 16);
        QCOMPARE(five.value(QStringLiteral("transforms")).toArray(), (QJsonArray{QStringLiteral("crop"), QStringLiteral("flip")}));
        QVERIFY(variants != six.value(QStringLiteral("variants")).toArray());  // another seed, other variants
        QCOMPARE(six.value(QStringLiteral("original")), five.value(QStringLiteral("original")));
        QCOMPARE(fiveInline.value(QStringLiteral("variants")).toArray(), variants);

        const QJsonObject shotFive = oneShot(QStringLiteral("5")), shotSix = oneShot(QStringLiteral("6"));
        QCOMPARE(shotFive.value(QStringLiteral("variants")).toArray().size(), 16);
        QCOMPARE(variants, shotFive.value(QStringLiteral("variants")).toArray());
        QCOMPARE(six.value(QStringLiteral("variants")).toArray(), shotSix.value(QStringLiteral("variants")).toArray());
        QCOMPARE(five.value(QStringLiteral("original")), shotFive.value(QStringLiteral("original")));
        worker.closeWriteChannel();
        QVERIFY(worker.waitForFinished(30000));
    }

    // The replies' counts: the first request loads the data set and compiles the preset, another seed reuses both, an
    // edit of a transform compiles again, an edit of the data set node loads it again.
    void keepsTheDataSetAndThePresetBetweenRequests()
    {
        QProcess worker;
        startWorker(worker);
        const auto counts = [](const QJsonObject &r) {
            return QPair<int, int>(r.value(QStringLiteral("dataset_loads")).toInt(-1), r.value(QStringLiteral("compilations")).toInt(-1));
        };
        send(worker, request(1, presetFile, 5));
        QCOMPARE(counts(reply(worker)), qMakePair(1, 1));
        send(worker, request(2, presetFile, 6));
        QCOMPARE(counts(reply(worker)), qMakePair(1, 1));
        QJsonObject edited = request(3, presetFile, 6);
        edited.insert(QStringLiteral("set"), QJsonArray{QStringLiteral("flip.p=1")});
        send(worker, edited);
        QCOMPARE(counts(reply(worker)), qMakePair(1, 2));
        QJsonObject otherData = request(4, presetFile, 6);
        otherData.insert(QStringLiteral("set"), QJsonArray{QStringLiteral("data.samples=32")});
        send(worker, otherData);
        const QJsonObject reloaded = reply(worker);
        QVERIFY2(!reloaded.contains(QStringLiteral("error")), qPrintable(reloaded.value(QStringLiteral("error")).toString()));
        QCOMPARE(counts(reloaded), qMakePair(2, 3));
        worker.closeWriteChannel();
        QVERIFY(worker.waitForFinished(30000));
    }

    void aBadRequestGetsAnErrorAndTheWorkerGoesOn()
    {
        QProcess worker;
        startWorker(worker);
        send(worker, request(1, presetFile, -3));
        const QJsonObject badSeed = reply(worker);
        QCOMPARE(badSeed.value(QStringLiteral("id")).toInt(), 1);
        QCOMPARE(badSeed.value(QStringLiteral("field")).toString(), QStringLiteral("seed"));
        QVERIFY(badSeed.value(QStringLiteral("error")).toString().contains(QStringLiteral("\"seed\"")));
        QVERIFY(!badSeed.contains(QStringLiteral("variants")));

        send(worker, "{not json");
        const QJsonObject notJson = reply(worker);
        QVERIFY2(notJson.value(QStringLiteral("error")).toString().contains(QStringLiteral("not JSON")), qPrintable(notJson.value(QStringLiteral("error")).toString()));

        QJsonObject noPreset = request(2, presetFile, 1);
        noPreset.remove(QStringLiteral("preset_file"));
        send(worker, noPreset);
        QCOMPARE(reply(worker).value(QStringLiteral("field")).toString(), QStringLiteral("preset"));
        send(worker, request(6, presetFile + QStringLiteral(".missing"), 1));
        const QJsonObject missing = reply(worker);
        QCOMPARE(missing.value(QStringLiteral("id")).toInt(), 6);
        QCOMPARE(missing.value(QStringLiteral("field")).toString(), QStringLiteral("preset_file"));

        QJsonObject notATransform = request(3, presetFile, 1);
        notATransform.insert(QStringLiteral("node"), QStringLiteral("fc"));
        send(worker, notATransform);
        const QJsonObject fc = reply(worker);
        QCOMPARE(fc.value(QStringLiteral("field")).toString(), QStringLiteral("node"));
        QVERIFY(fc.value(QStringLiteral("error")).toString().contains(QStringLiteral("fc is not a transform")));

        QJsonObject badSet = request(4, presetFile, 1);
        badSet.insert(QStringLiteral("set"), QJsonArray{QStringLiteral("crop.padding=-1")});
        send(worker, badSet);
        const QJsonObject set = reply(worker);
        QVERIFY2(set.contains(QStringLiteral("error")) && !set.value(QStringLiteral("field")).toString().isEmpty(),
                 qPrintable(QJsonDocument(set).toJson(QJsonDocument::Compact)));

        send(worker, request(5, presetFile, 5));
        const QJsonObject good = reply(worker);
        QCOMPARE(good.value(QStringLiteral("id")).toInt(), 5);
        QVERIFY2(!good.contains(QStringLiteral("error")), qPrintable(good.value(QStringLiteral("error")).toString()));
        QCOMPARE(good.value(QStringLiteral("variants")).toArray().size(), 16);
        QCOMPARE(worker.state(), QProcess::Running);
        worker.closeWriteChannel();
        QVERIFY(worker.waitForFinished(30000));
    }

    void closingStdinEndsTheWorker()
    {
        QProcess worker;
        startWorker(worker);
        send(worker, request(1, presetFile, 1));
        QVERIFY(reply(worker).contains(QStringLiteral("variants")));
        QVERIFY(!worker.waitForFinished(300));  // it waits for the next request
        worker.closeWriteChannel();
        QVERIFY(worker.waitForFinished(30000));
        QCOMPARE(worker.exitStatus(), QProcess::NormalExit);
        QCOMPARE(worker.exitCode(), 0);
        QVERIFY(worker.readAllStandardOutput().trimmed().isEmpty());  // no reply without a request
    }

    void serveTakesNoOtherArguments()
    {
        QProcess process;
        process.start(QStringLiteral(TRAINYARD_CLI), {QStringLiteral("augment"), QStringLiteral("--serve"), presetFile});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 2);
        QVERIFY(process.readAllStandardError().contains("--serve takes no other arguments"));
    }
};

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    TestCliAugment tests;
    return QTest::qExec(&tests, argc, argv);
}

#include "test_cli_augment.moc"
