// EventStreamParser: every event kind of docs/events.md, lines split across reads anywhere, malformed input
// reported and skipped, unknown events ignored, a last line without a newline.

#include "test_suite.h"
#include "training/event_stream_parser.h"

#include "event_kinds.h"

#include <QFile>
#include <QRegularExpression>

#include <QSignalSpy>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace ty;

namespace {

const QByteArray kStream =
    "{\"event\":\"started\",\"run_id\":7,\"db\":\"/tmp/runs.sqlite\",\"device\":\"cpu\",\"train_samples\":900,"
    "\"val_samples\":100,\"test_samples\":50,\"steps_per_epoch\":29,\"total_steps\":58,\"epochs\":2,"
    "\"parameters\":1234,\"resumed_at_step\":-1}\n"
    "{\"event\":\"metrics\",\"columns\":[\"name\",\"step\",\"epoch\",\"time\",\"value\"],"
    "\"rows\":[[\"train/loss\",1,1,0.004,2.31],[\"train/loss\",2,1,0.008,null],[\"train/lr\",2,1,0.008,0.1]]}\n"
    "{\"event\":\"epoch\",\"epoch\":1,\"step\":29,\"metrics\":{\"train/loss\":0.41,\"val/accuracy\":0.85,\"val/loss\":null}}\n"
    "{\"event\":\"checkpoint\",\"epoch\":1,\"step\":29,\"path\":\"/tmp/runs/7/checkpoints/step-00000029.pt\"}\n"
    "{\"event\":\"warning\",\"message\":\"disk full\",\"step\":30}\n"
    "{\"event\":\"diverged\",\"message\":\"the loss is NaN\",\"step\":31}\n"
    "{\"event\":\"early_stop\",\"message\":\"no progress\",\"step\":32}\n"
    "{\"event\":\"resumed\",\"message\":\"from step 29\",\"step\":29}\n"
    "{\"event\":\"stage\",\"message\":\"stage 2/2 \\\"all\\\"\",\"step\":29}\n"
    "{\"event\":\"init_from\",\"message\":\"weights copied: fc1\",\"step\":0}\n"
    "{\"event\":\"finished\",\"run_id\":7,\"status\":\"failed\",\"message\":\"boom\",\"node\":\"fc1\",\"steps\":58,"
    "\"epochs\":2,\"summary\":{\"test/accuracy\":0.89,\"val/loss\":null},\"checkpoint\":\"/tmp/c.pt\"}\n"
    "{\"event\":\"error\",\"message\":\"expects [10] logits\",\"file\":\"p.json\",\"node\":\"loss\",\"field\":\"input\","
    "\"line\":7,\"column\":18}\n";

// Every signal of a parser, recorded.
struct Spies {
    explicit Spies(EventStreamParser *p)
        : started(p, &EventStreamParser::started), metrics(p, &EventStreamParser::metricsReceived),
          epoch(p, &EventStreamParser::epochEnded), checkpoint(p, &EventStreamParser::checkpointWritten),
          note(p, &EventStreamParser::noteReceived), finished(p, &EventStreamParser::finished),
          error(p, &EventStreamParser::errorReported), malformed(p, &EventStreamParser::malformedLine)
    {
    }
    int total() const
    {
        return int(started.size() + metrics.size() + epoch.size() + checkpoint.size() + note.size() + finished.size()
                   + error.size());
    }
    QSignalSpy started, metrics, epoch, checkpoint, note, finished, error, malformed;
};

} // namespace

class TestEventStreamParser : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyEventKind();
    void everyNoteKindReachesTheApp();
    void theDocsListEveryKindInOrder();
    void splitAnywhere_data();
    void splitAnywhere();
    void oneByteAtATime();
    void malformedLines_data();
    void malformedLines();
    void unknownEventsAreIgnored();
    void lastLineWithoutNewline();
    void crlfAndBlankLines();
    void overlongLineIsDropped();
    void columnsMayBeReordered();
    void numbersBeyondRangeAreHeld();
};

void TestEventStreamParser::everyEventKind()
{
    EventStreamParser parser;
    Spies spies(&parser);
    parser.feed(kStream);
    QCOMPARE(spies.malformed.size(), 0);
    QCOMPARE(parser.eventCount(), qint64(12));

    QCOMPARE(spies.started.size(), 1);
    const auto started = spies.started.at(0).at(0).value<TrainingStarted>();
    QCOMPARE(started.runId, qint64(7));
    QCOMPARE(started.dbPath, QStringLiteral("/tmp/runs.sqlite"));
    QCOMPARE(started.device, QStringLiteral("cpu"));
    QCOMPARE(started.trainSamples, qint64(900));
    QCOMPARE(started.stepsPerEpoch, qint64(29));
    QCOMPARE(started.totalSteps, qint64(58));
    QCOMPARE(started.epochs, 2);
    QCOMPARE(started.parameters, qint64(1234));
    QCOMPARE(started.resumedAtStep, qint64(-1));

    QCOMPARE(spies.metrics.size(), 1);
    const auto rows = spies.metrics.at(0).at(0).value<QList<MetricPoint>>();
    QCOMPARE(rows.size(), 3);
    QCOMPARE(rows.at(0).name, QStringLiteral("train/loss"));
    QCOMPARE(rows.at(0).step, qint64(1));
    QCOMPARE(rows.at(0).epoch, 1);
    QCOMPARE(rows.at(0).time, 0.004);
    QCOMPARE(rows.at(0).value, 2.31);
    QVERIFY(std::isnan(rows.at(1).value));  // null: not finite
    QCOMPARE(rows.at(2).name, QStringLiteral("train/lr"));

    const auto epoch = spies.epoch.at(0).at(0).value<TrainingEpoch>();
    QCOMPARE(epoch.epoch, 1);
    QCOMPARE(epoch.step, qint64(29));
    QCOMPARE(epoch.metrics.value(QStringLiteral("val/accuracy")), 0.85);
    QVERIFY(std::isnan(epoch.metrics.value(QStringLiteral("val/loss"))));

    const auto checkpoint = spies.checkpoint.at(0).at(0).value<TrainingCheckpoint>();
    QCOMPARE(checkpoint.step, qint64(29));
    QCOMPARE(checkpoint.epoch, 1);
    QCOMPARE(checkpoint.path, QStringLiteral("/tmp/runs/7/checkpoints/step-00000029.pt"));

    QCOMPARE(spies.note.size(), 6);
    QStringList kinds;
    for (const QList<QVariant> &args : std::as_const(spies.note))
        kinds << args.at(0).value<TrainingNote>().kind;
    QCOMPARE(kinds, (QStringList{"warning", "diverged", "early_stop", "resumed", "stage", "init_from"}));
    QCOMPARE(spies.note.at(4).at(0).value<TrainingNote>().message, QStringLiteral("stage 2/2 \"all\""));
    QCOMPARE(spies.note.at(0).at(0).value<TrainingNote>().message, QStringLiteral("disk full"));
    QCOMPARE(spies.note.at(0).at(0).value<TrainingNote>().step, qint64(30));

    const auto finished = spies.finished.at(0).at(0).value<TrainingFinished>();
    QCOMPARE(finished.runId, qint64(7));
    QCOMPARE(finished.status, QStringLiteral("failed"));
    QCOMPARE(finished.message, QStringLiteral("boom"));
    QCOMPARE(finished.node, QStringLiteral("fc1"));
    QCOMPARE(finished.steps, qint64(58));
    QCOMPARE(finished.epochs, 2);
    QCOMPARE(finished.summary.value(QStringLiteral("test/accuracy")), 0.89);
    QCOMPARE(finished.checkpoint, QStringLiteral("/tmp/c.pt"));

    const auto error = spies.error.at(0).at(0).value<TrainingError>();
    QCOMPARE(error.message, QStringLiteral("expects [10] logits"));
    QCOMPARE(error.file, QStringLiteral("p.json"));
    QCOMPARE(error.node, QStringLiteral("loss"));
    QCOMPARE(error.field, QStringLiteral("input"));
    QCOMPARE(error.line, 7);
    QCOMPARE(error.column, 18);
}

// Every note kind of the shared list (core/common/event_kinds.h) arrives as a note: none is dropped as unknown
// (five of them were, when the parser kept its own list).
void TestEventStreamParser::everyNoteKindReachesTheApp()
{
    EventStreamParser parser;
    Spies spies(&parser);
    QStringList notes;
    for (const EventKindInfo &info : eventKinds()) {
        if (!info.note)
            continue;
        notes << QString::fromLatin1(info.name);
        parser.feed(QByteArray("{\"event\":\"") + info.name + "\",\"message\":\"m\",\"step\":3}\n");
    }
    QVERIFY(notes.contains(QStringLiteral("lr_reduced")) && notes.contains(QStringLiteral("notice")));
    QCOMPARE(spies.malformed.size(), 0);
    QCOMPARE(parser.ignoredCount(), qint64(0));
    QStringList received;
    for (const QList<QVariant> &args : std::as_const(spies.note))
        received << args.at(0).value<TrainingNote>().kind;
    QCOMPARE(received, notes);
    // Names and kinds map both ways.
    for (const EventKindInfo &info : eventKinds())
        QVERIFY(eventKindNamed(eventKindName(info.kind)) && eventKindNamed(eventKindName(info.kind))->kind == info.kind);
    QVERIFY(!eventKindNamed(QStringLiteral("no_such_kind")));
}

// docs/events.md's table names every kind, in the list's order, and no other.
void TestEventStreamParser::theDocsListEveryKindInOrder()
{
    QFile docs(QStringLiteral(TRAINYARD_SOURCE_DIR "/docs/events.md"));
    QVERIFY(docs.open(QIODevice::ReadOnly));
    QStringList documented;
    const QRegularExpression row(QStringLiteral("^\\| `([a-z_]+)` \\|"));
    for (const QString &line : QString::fromUtf8(docs.readAll()).split(QLatin1Char('\n')))
        if (const QRegularExpressionMatch m = row.match(line); m.hasMatch())
            documented << m.captured(1);
    QStringList listed;
    for (const EventKindInfo &info : eventKinds())
        listed << QString::fromLatin1(info.name);
    QCOMPARE(documented, listed);
}

void TestEventStreamParser::splitAnywhere_data()
{
    QTest::addColumn<int>("cut");
    for (int cut : {1, 17, 200, 201, 202, int(kStream.indexOf('\n')), int(kStream.indexOf('\n')) + 1, 555,
                    int(kStream.size()) - 1})
        QTest::newRow(qPrintable(QString::number(cut))) << cut;
}

void TestEventStreamParser::splitAnywhere()
{
    QFETCH(int, cut);
    EventStreamParser parser;
    Spies spies(&parser);
    parser.feed(kStream.left(cut));
    const int before = spies.total();
    QVERIFY(parser.bufferedBytes() <= cut);
    parser.feed(kStream.mid(cut));
    QCOMPARE(spies.total(), 12);
    QVERIFY(before <= 12);
    QCOMPARE(spies.malformed.size(), 0);
    QCOMPARE(parser.bufferedBytes(), 0);
}

void TestEventStreamParser::oneByteAtATime()
{
    // Multi-byte UTF-8 is cut in the middle too.
    const QByteArray stream = QStringLiteral("{\"event\":\"warning\",\"message\":\"Gewichte überprüft ✓\",\"step\":3}\n").toUtf8()
                            + kStream;
    EventStreamParser parser;
    Spies spies(&parser);
    for (char byte : stream)
        parser.feed(QByteArray(1, byte));
    QCOMPARE(spies.total(), 13);
    QCOMPARE(spies.malformed.size(), 0);
    QCOMPARE(spies.note.at(0).at(0).value<TrainingNote>().message, QStringLiteral("Gewichte überprüft ✓"));
}

void TestEventStreamParser::malformedLines_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("reason");
    QTest::newRow("not JSON") << QByteArray("Segmentation fault") << "not JSON";
    QTest::newRow("truncated") << QByteArray("{\"event\":\"epoch\",\"epoch\":1,") << "not JSON";
    QTest::newRow("array") << QByteArray("[1,2,3]") << "not a JSON object";
    QTest::newRow("no event") << QByteArray("{\"run_id\":3}") << "no \"event\"";
    QTest::newRow("event not a string") << QByteArray("{\"event\":5}") << "no \"event\"";
    QTest::newRow("started without id") << QByteArray("{\"event\":\"started\",\"run_id\":\"x\"}") << "run_id";
    QTest::newRow("epoch without step") << QByteArray("{\"event\":\"epoch\",\"epoch\":1}") << "step";
    QTest::newRow("metrics rows missing") << QByteArray("{\"event\":\"metrics\"}") << "rows";
    QTest::newRow("metrics row short") << QByteArray("{\"event\":\"metrics\",\"rows\":[[\"train/loss\",1]]}") << "row 0";
    QTest::newRow("metrics value text") << QByteArray("{\"event\":\"metrics\",\"rows\":[[\"a\",1,1,0,\"x\"]]}") << "row 0";
    QTest::newRow("finished without status") << QByteArray("{\"event\":\"finished\",\"run_id\":1}") << "status";
    QTest::newRow("checkpoint without path") << QByteArray("{\"event\":\"checkpoint\",\"step\":1}") << "path";
    QTest::newRow("warning without message") << QByteArray("{\"event\":\"warning\"}") << "message";
}

void TestEventStreamParser::malformedLines()
{
    QFETCH(QByteArray, line);
    QFETCH(QString, reason);
    EventStreamParser parser;
    Spies spies(&parser);
    // Between two good lines: the bad one is reported and skipped, the good ones still arrive.
    parser.feed("{\"event\":\"warning\",\"message\":\"a\",\"step\":1}\n" + line + "\n{\"event\":\"warning\",\"message\":\"b\",\"step\":2}\n");
    QCOMPARE(spies.malformed.size(), 1);
    QCOMPARE(parser.malformedCount(), qint64(1));
    QVERIFY2(spies.malformed.at(0).at(1).toString().contains(reason), qPrintable(spies.malformed.at(0).at(1).toString()));
    QCOMPARE(spies.malformed.at(0).at(0).toString(), QString::fromUtf8(line));
    QCOMPARE(spies.total(), 2);
    QCOMPARE(spies.note.at(1).at(0).value<TrainingNote>().message, QStringLiteral("b"));
}

void TestEventStreamParser::unknownEventsAreIgnored()
{
    EventStreamParser parser;
    Spies spies(&parser);
    parser.feed("{\"event\":\"gpu_temperature\",\"celsius\":71}\n{\"event\":\"warning\",\"message\":\"m\",\"step\":1}\n");
    QCOMPARE(spies.total(), 1);
    QCOMPARE(spies.malformed.size(), 0);
    QCOMPARE(parser.ignoredCount(), qint64(1));
}

void TestEventStreamParser::lastLineWithoutNewline()
{
    EventStreamParser parser;
    Spies spies(&parser);
    parser.feed("{\"event\":\"finished\",\"run_id\":3,\"status\":\"stopped\"}");
    QCOMPARE(spies.finished.size(), 0);  // not yet: the line may go on
    parser.finish();
    QCOMPARE(spies.finished.size(), 1);
    QCOMPARE(spies.finished.at(0).at(0).value<TrainingFinished>().status, QStringLiteral("stopped"));
    parser.finish();  // nothing left: nothing more
    QCOMPARE(spies.total(), 1);
    // A cut-off last line is malformed.
    parser.feed("{\"event\":\"finished\",\"run_");
    parser.finish();
    QCOMPARE(spies.malformed.size(), 1);
}

void TestEventStreamParser::crlfAndBlankLines()
{
    EventStreamParser parser;
    Spies spies(&parser);
    parser.feed("\n\r\n{\"event\":\"warning\",\"message\":\"m\",\"step\":1}\r\n   \n");
    QCOMPARE(spies.total(), 1);
    QCOMPARE(spies.malformed.size(), 0);
}

void TestEventStreamParser::overlongLineIsDropped()
{
    EventStreamParser parser;
    Spies spies(&parser);
    const QByteArray chunk(1024 * 1024, 'x');
    for (int i = 0; i <= EventStreamParser::kMaxLineBytes / chunk.size(); ++i)
        parser.feed(chunk);
    QCOMPARE(spies.malformed.size(), 1);
    QVERIFY(spies.malformed.at(0).at(1).toString().contains(QStringLiteral("longer than")));
    QCOMPARE(parser.bufferedBytes(), 0);
    parser.feed(chunk + "\n{\"event\":\"warning\",\"message\":\"after\",\"step\":1}\n");  // the rest of it, then a good line
    QCOMPARE(spies.malformed.size(), 1);
    QCOMPARE(spies.note.size(), 1);
    QCOMPARE(spies.note.at(0).at(0).value<TrainingNote>().message, QStringLiteral("after"));
}

void TestEventStreamParser::columnsMayBeReordered()
{
    EventStreamParser parser;
    Spies spies(&parser);
    parser.feed("{\"event\":\"metrics\",\"columns\":[\"value\",\"name\",\"step\",\"extra\"],\"rows\":[[0.5,\"val/loss\",9,\"?\"]]}\n");
    QCOMPARE(spies.malformed.size(), 0);
    const auto rows = spies.metrics.at(0).at(0).value<QList<MetricPoint>>();
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.at(0).name, QStringLiteral("val/loss"));
    QCOMPARE(rows.at(0).step, qint64(9));
    QCOMPARE(rows.at(0).value, 0.5);
    QCOMPARE(rows.at(0).epoch, 0);
    QVERIFY(std::isnan(rows.at(0).time));
}

// A step beyond qint64 (a damaged or hostile stream) is held at the largest one, not converted with undefined
// behaviour; an epoch beyond int reads as 0, as a missing one does.
void TestEventStreamParser::numbersBeyondRangeAreHeld()
{
    EventStreamParser parser;
    Spies spies(&parser);
    parser.feed("{\"event\":\"metrics\",\"columns\":[\"name\",\"step\",\"epoch\",\"time\",\"value\"],"
                "\"rows\":[[\"train/loss\",1e300,1e300,0.1,0.5]]}\n"
                "{\"event\":\"checkpoint\",\"epoch\":1,\"step\":-1e300,\"path\":\"/tmp/c\"}\n");
    QCOMPARE(spies.malformed.size(), 0);
    const auto rows = spies.metrics.at(0).at(0).value<QList<MetricPoint>>();
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.at(0).step, std::numeric_limits<qint64>::max());
    QCOMPARE(rows.at(0).epoch, 0);
    QCOMPARE(spies.checkpoint.size(), 1);
    QCOMPARE(spies.checkpoint.at(0).at(0).value<TrainingCheckpoint>().step, std::numeric_limits<qint64>::min());
}

TY_TEST_CLASS(TestEventStreamParser)

#include "test_event_stream_parser.moc"
