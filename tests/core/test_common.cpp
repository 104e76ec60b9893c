// core/common: Error and Issue texts (what every front end prints), JSON reading with line and column,
// JSON type names and canonical serialisation, SHA-256 digests.

#include "test_suite.h"
#include "core_test_support.h"

#include "error.h"
#include "issue.h"
#include "json_io.h"
#include "number_text.h"
#include "printable_text.h"
#include "regular_file.h"
#include "sha256.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <sys/stat.h>
#include <limits>

using namespace ty;

namespace {

class TestCommon : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void errorToString_data();
    void errorToString();
    void issueToString();
    void issueToJson();
    void hasErrorsOnlyCountsErrors();
    void severityNames();
    void parseJsonObjectReportsLineAndColumn_data();
    void parseJsonObjectReportsLineAndColumn();
    void parseJsonObjectRefusesNonObjects();
    void readJsonObjectFileMissingFile();
    void writeThenReadJsonObjectFile();
    void writeJsonObjectFileIntoMissingFolderFails();
    void readableJsonOrdersKeysAndInlinesPlainArrays();
    void jsonTypeName_data();
    void jsonTypeName();
    void canonicalJsonIgnoresKeyOrder();
    void jsonTimeIsQDateTimesIsoText_data();
    void jsonTimeIsQDateTimesIsoText();
    void printableTextEscapesAndCuts_data();
    void printableTextEscapesAndCuts();
    void readJsonObjectFileRefusesSpecialAndHugeFiles();
    void readAtMostReadsTheFileOrOneByteOverTheLimit();
    void shortestNumberTextReadsBackTheSameValue_data();
    void shortestNumberTextReadsBackTheSameValue();
    void sha256EqualsTheStandardDigest();
};

// Sha256 (OpenSSL) gives FIPS 180-2's digests and Qt's, in one piece or fed in parts of any size.
void TestCommon::sha256EqualsTheStandardDigest()
{
    QCOMPARE(Sha256::hexHash(QByteArrayLiteral("abc")),
             QStringLiteral("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    QCOMPARE(Sha256::hexHash(QByteArray()), QStringLiteral("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    QByteArray bytes(3 * 1024 * 1024 + 17, Qt::Uninitialized);
    for (qsizetype i = 0; i < bytes.size(); ++i)
        bytes[i] = char((i * 2654435761u) >> 13);
    const QByteArray expected = QCryptographicHash::hash(bytes, QCryptographicHash::Sha256);
    QCOMPARE(Sha256::hash(bytes), expected);
    Sha256 parts;
    for (qsizetype at = 0, step = 1; at < bytes.size(); at += step, step = step * 3 + 1)
        parts.addData(QByteArrayView(bytes.constData() + at, std::min(step, bytes.size() - at)));
    QCOMPARE(parts.result(), expected);
    QCOMPARE(parts.result(), expected);  // asked again: the same digest
    QCOMPARE(parts.hexResult(), QString::fromLatin1(expected.toHex()));
}

void TestCommon::shortestNumberTextReadsBackTheSameValue_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("text");
    QTest::newRow("a float widened to double") << double(0.3f) << QStringLiteral("0.3");
    QTest::newRow("a float loss") << double(0.41234567f) << QStringLiteral("0.41234568");
    QTest::newRow("a small float") << double(1.5e-7f) << QStringLiteral("1.5e-07");
    QTest::newRow("a double") << 0.1 << QStringLiteral("0.1");
    QTest::newRow("a double no float holds") << 0.041 << QStringLiteral("0.041");
    QTest::newRow("a double with every digit") << 2.0 / 3.0 << QStringLiteral("0.6666666666666666");
    QTest::newRow("a whole number") << 430.0 << QStringLiteral("430");
    QTest::newRow("a large double") << 1e300 << QStringLiteral("1e+300");
    QTest::newRow("negative") << double(-2.25f) << QStringLiteral("-2.25");
    QTest::newRow("zero") << 0.0 << QStringLiteral("0");
}

// The text is the shortest that reads back to the value: as a float when the double is exactly one (metrics are
// computed in single precision), else as the double itself. Not the widened float's 0.30000001192092896.
void TestCommon::shortestNumberTextReadsBackTheSameValue()
{
    QFETCH(double, value);
    QFETCH(QString, text);
    QCOMPARE(shortestNumberText(value), text);
    bool ok = false;
    if (isWidenedFloat(value))
        QCOMPARE(text.toFloat(&ok), float(value));
    else
        QCOMPARE(text.toDouble(&ok), value);
    QVERIFY(ok);
    QVERIFY(!isWidenedFloat(0.1));
    QVERIFY(isWidenedFloat(double(0.1f)));
    QCOMPARE(shortestNumberText(std::nan("")), QStringLiteral("nan"));
    QCOMPARE(shortestNumberText(-std::numeric_limits<double>::infinity()), QStringLiteral("-inf"));
}

// A FIFO would block, /dev/zero would grow without end, a huge file is no preset: all refused before reading.
void TestCommon::readJsonObjectFileRefusesSpecialAndHugeFiles()
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("pipe.json"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    QCOMPARE(readJsonObjectFile(fifo).error().message, QStringLiteral("not a regular file (a FIFO)"));
    QCOMPARE(readJsonObjectFile(QStringLiteral("/dev/zero")).error().message, QStringLiteral("not a regular file (a device)"));
    QCOMPARE(readJsonObjectFile(dir.path()).error().message, QStringLiteral("not a regular file (a folder)"));
    QCOMPARE(readJsonObjectFile(dir.filePath(QStringLiteral("none.json"))).error().message, QStringLiteral("file not found"));
    QCOMPARE(requireRegularFile(fifo).error().file, fifo);
    const QString huge = dir.filePath(QStringLiteral("huge.json"));
    {
        QFile file(huge);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.resize(kMaxJsonFileBytes + 10));  // sparse: no disk needed
    }
    const Result<QJsonObject> read = readJsonObjectFile(huge);
    QVERIFY(!read.ok());
    QVERIFY2(read.error().message.contains(QStringLiteral("larger than 64 MiB")), qPrintable(read.error().message));
}

// The whole file when it fits the limit, whatever its size against readAtMost's chunk; one byte over the limit
// when it does not, so that the caller can refuse it.
void TestCommon::readAtMostReadsTheFileOrOneByteOverTheLimit()
{
    QTemporaryDir dir;
    for (const int size : {0, 10, 65535, 65536, 65537, 300001}) {
        QByteArray content(size, Qt::Uninitialized);
        for (int i = 0; i < size; ++i)
            content[i] = char((i * 31 + size) % 251);
        const QString path = dir.filePath(QStringLiteral("f%1").arg(size));
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            QCOMPARE(file.write(content), qint64(size));
        }
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(readAtMost(file, kMaxJsonFileBytes), content);
        for (const qint64 limit : {qint64(0), qint64(9), qint64(65536), qint64(size), qint64(size) - 1}) {
            if (limit < 0)
                continue;
            QVERIFY(file.seek(0));
            const QByteArray read = readAtMost(file, limit);
            QCOMPARE(read, content.left(qsizetype(std::min<qint64>(limit + 1, size))));
        }
    }
}

void TestCommon::printableTextEscapesAndCuts_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("maxChars");
    QTest::addColumn<QString>("expected");
    QTest::newRow("plain") << QStringLiteral("Fashion-MNIST MLP · fc1=64") << 200 << QStringLiteral("Fashion-MNIST MLP · fc1=64");
    QTest::newRow("terminal escape") << QStringLiteral("run\x1b]0;owned\x07") << 200 << QStringLiteral("run\\x1b]0;owned\\x07");
    QTest::newRow("newline and tab") << QStringLiteral("a\nb\tc") << 200 << QStringLiteral("a\\nb\\tc");
    QTest::newRow("cut") << QStringLiteral("root:x:0:0:root:/root:/bin/bash") << 10 << QStringLiteral("root:x:0:0...");
}

void TestCommon::printableTextEscapesAndCuts()
{
    QFETCH(QString, text);
    QFETCH(int, maxChars);
    QFETCH(QString, expected);
    QCOMPARE(printableExcerpt(text, maxChars), expected);
    QCOMPARE(printableList({text, text, text}, 2, maxChars), expected + QStringLiteral(", ") + expected + QStringLiteral(" (1 more)"));
}

void TestCommon::errorToString_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expected");

    QTest::newRow("everything") << "p.json" << 3 << 7 << "conv1" << "kernel_size"
                                << "p.json:3:7: node 'conv1', field 'kernel_size': boom";
    QTest::newRow("message only") << "" << 0 << 0 << "" << "" << "boom";
    QTest::newRow("file only") << "p.json" << 0 << 0 << "" << "" << "p.json: boom";
    QTest::newRow("file and line") << "p.json" << 4 << 0 << "" << "" << "p.json:4: boom";
    QTest::newRow("line without file is not printed") << "" << 4 << 2 << "" << "" << "boom";
    QTest::newRow("node only") << "" << 0 << 0 << "opt" << "" << "node 'opt': boom";
    QTest::newRow("field only") << "p.json" << 0 << 0 << "" << "edges[2].from"
                                << "p.json: field 'edges[2].from': boom";
}

void TestCommon::errorToString()
{
    QFETCH(QString, file);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, node);
    QFETCH(QString, field);
    QFETCH(QString, expected);
    Error e;
    e.message = QStringLiteral("boom");
    e.file = file;
    e.line = line;
    e.column = column;
    e.node = node;
    e.field = field;
    QCOMPARE(e.toString(), expected);
}

void TestCommon::issueToString()
{
    const Issue full{Severity::Error, QStringLiteral("must be at least 1"), QStringLiteral("conv1"), {},
                     QStringLiteral("kernel_size")};
    QCOMPARE(full.toString(), QStringLiteral("error: node 'conv1', param 'kernel_size': must be at least 1"));
    const Issue port{Severity::Warning, QStringLiteral("m"), QStringLiteral("loss"), QStringLiteral("loss"), {}};
    QCOMPARE(port.toString(), QStringLiteral("warning: node 'loss', port 'loss': m"));
    const Issue global{Severity::Info, QStringLiteral("the pipeline has no dataset node"), {}, {}, {}};
    QCOMPARE(global.toString(), QStringLiteral("info: the pipeline has no dataset node"));
}

void TestCommon::issueToJson()
{
    const Issue issue{Severity::Warning, QStringLiteral("m"), QStringLiteral("fc"), QStringLiteral("in"), {}};
    const QJsonObject json = issue.toJson();
    QCOMPARE(json.value(QStringLiteral("severity")).toString(), QStringLiteral("warning"));
    QCOMPARE(json.value(QStringLiteral("message")).toString(), QStringLiteral("m"));
    QCOMPARE(json.value(QStringLiteral("node")).toString(), QStringLiteral("fc"));
    QCOMPARE(json.value(QStringLiteral("port")).toString(), QStringLiteral("in"));
    QVERIFY2(!json.contains(QStringLiteral("param")), "empty fields are left out");
    QCOMPARE(json.size(), 4);
}

void TestCommon::hasErrorsOnlyCountsErrors()
{
    Issues issues;
    QVERIFY(!hasErrors(issues));
    issues << Issue{Severity::Warning, QStringLiteral("w"), {}, {}, {}}
           << Issue{Severity::Info, QStringLiteral("i"), {}, {}, {}};
    QVERIFY(!hasErrors(issues));
    issues << Issue{Severity::Error, QStringLiteral("e"), {}, {}, {}};
    QVERIFY(hasErrors(issues));
}

void TestCommon::severityNames()
{
    QCOMPARE(severityName(Severity::Error), QStringLiteral("error"));
    QCOMPARE(severityName(Severity::Warning), QStringLiteral("warning"));
    QCOMPARE(severityName(Severity::Info), QStringLiteral("info"));
}

void TestCommon::parseJsonObjectReportsLineAndColumn_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");  // 1-based, of the character the user has to fix

    // The value separator after "x" is missing: the quote opening "nodes" (line 3, column 3) is where a comma
    // should be.
    QTest::newRow("missing comma") << QByteArray("{\n  \"name\": \"x\"\n  \"nodes\": []\n}\n") << 3 << 3;
    // A bare word where a value should be: `nope` (line 2, columns 11-14) is not `null` from its "o" on.
    QTest::newRow("bad value") << QByteArray("{\n  \"name\": nope\n}\n") << 2 << 12;
    // A stray closing bracket at line 1, column 7.
    QTest::newRow("first line") << QByteArray("{\"a\": ]}") << 1 << 7;
}

void TestCommon::parseJsonObjectReportsLineAndColumn()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, line);
    QFETCH(int, column);
    const Result<QJsonObject> result = parseJsonObject(bytes, QStringLiteral("p.json"));
    QVERIFY(!result.ok());
    QCOMPARE(result.error().file, QStringLiteral("p.json"));
    QVERIFY2(result.error().message.startsWith(QStringLiteral("malformed JSON: ")), qPrintable(result.error().message));
    QCOMPARE(result.error().line, line);
    QVERIFY2(result.error().toString().startsWith(QStringLiteral("p.json:%1:").arg(line)),
             qPrintable(result.error().toString()));
    // QJsonParseError::offset lies just past the character the parser stumbled on, and parseJsonObject turns
    // that offset into the column as is: the column printed is one to the right of the culprit.
    QCOMPARE(result.error().column, column);
}

void TestCommon::parseJsonObjectRefusesNonObjects()
{
    for (const QByteArray &bytes : {QByteArray("[1, 2]"), QByteArray("[]")}) {
        const Result<QJsonObject> result = parseJsonObject(bytes, QStringLiteral("a.json"));
        QVERIFY(!result.ok());
        QCOMPARE(result.error().message, QStringLiteral("expected a JSON object at the top level"));
        QCOMPARE(result.error().file, QStringLiteral("a.json"));
    }
    const Result<QJsonObject> ok = parseJsonObject("{\"a\": 1}", QStringLiteral("a.json"));
    QVERIFY(ok.ok());
    QCOMPARE(ok.value().value(QStringLiteral("a")).toInt(), 1);
}

void TestCommon::readJsonObjectFileMissingFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("missing.json"));
    const Result<QJsonObject> result = readJsonObjectFile(path);
    QVERIFY(!result.ok());
    QCOMPARE(result.error().file, path);
    QCOMPARE(result.error().message, QStringLiteral("file not found"));
}

void TestCommon::writeThenReadJsonObjectFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("o.json"));
    const QJsonObject object{{QStringLiteral("b"), QJsonArray{1, 2.5, QStringLiteral("x")}},
                             {QStringLiteral("a"), QJsonObject{{QStringLiteral("t"), true}}}};
    const Status written = writeJsonObjectFile(path, object);
    QVERIFY2(written.ok(), qPrintable(written.error().toString()));
    const Result<QJsonObject> read = readJsonObjectFile(path);
    QVERIFY2(read.ok(), qPrintable(read.error().toString()));
    QCOMPARE(read.value(), object);
}

void TestCommon::readableJsonOrdersKeysAndInlinesPlainArrays()
{
    const QJsonObject object{
        {QStringLiteral("version"), 1},
        {QStringLiteral("format"), QStringLiteral("x \"quoted\"")},
        {QStringLiteral("alpha"), QJsonArray{}},
        {QStringLiteral("nodes"), QJsonArray{QJsonObject{{QStringLiteral("pos"), QJsonArray{40, 120.5}},
                                                         {QStringLiteral("id"), QStringLiteral("fc1")}}}},
        {QStringLiteral("empty"), QJsonObject{}},
        {QStringLiteral("tiny"), 1e-7}};
    const QByteArray text = readableJson(object, {QStringLiteral("format"), QStringLiteral("version"),
                                                  QStringLiteral("nodes"), QStringLiteral("id")});
    const QByteArray expected = "{\n"
                                "  \"format\": \"x \\\"quoted\\\"\",\n"
                                "  \"version\": 1,\n"
                                "  \"nodes\": [\n"
                                "    {\n"
                                "      \"id\": \"fc1\",\n"
                                "      \"pos\": [40, 120.5]\n"
                                "    }\n"
                                "  ],\n"
                                "  \"alpha\": [],\n"
                                "  \"empty\": {},\n"
                                "  \"tiny\": 1e-07\n"
                                "}\n";
    QCOMPARE(text, expected);
    const Result<QJsonObject> parsed = parseJsonObject(text, QStringLiteral("readable.json"));
    QVERIFY2(parsed.ok(), qPrintable(parsed.error().toString()));
    QCOMPARE(parsed.value(), object);
}

void TestCommon::writeJsonObjectFileIntoMissingFolderFails()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("no/such/folder/o.json"));
    const Status written = writeJsonObjectFile(path, QJsonObject{});
    QVERIFY(!written.ok());
    QCOMPARE(written.error().file, path);
    QVERIFY2(written.error().message.startsWith(QStringLiteral("cannot write file: ")), qPrintable(written.error().message));
}

void TestCommon::jsonTypeName_data()
{
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("expected");
    QTest::newRow("integer") << QJsonValue(3) << "integer";
    QTest::newRow("integral double") << QJsonValue(3.0) << "integer";
    QTest::newRow("negative integer") << QJsonValue(-7) << "integer";
    QTest::newRow("number") << QJsonValue(2.5) << "number";
    QTest::newRow("infinity") << QJsonValue(std::numeric_limits<double>::infinity()) << "number";
    QTest::newRow("string") << QJsonValue(QStringLiteral("3")) << "string";
    QTest::newRow("boolean") << QJsonValue(true) << "boolean";
    QTest::newRow("null") << QJsonValue(QJsonValue::Null) << "null";
    QTest::newRow("array") << QJsonValue(QJsonArray{1}) << "array";
    QTest::newRow("object") << QJsonValue(QJsonObject{}) << "object";
    QTest::newRow("undefined") << QJsonValue(QJsonValue::Undefined) << "nothing";
}

void TestCommon::jsonTypeName()
{
    QFETCH(QJsonValue, value);
    QFETCH(QString, expected);
    QCOMPARE(ty::jsonTypeName(value), expected);
}

void TestCommon::canonicalJsonIgnoresKeyOrder()
{
    const QJsonObject a = QJsonDocument::fromJson("{\"b\": 1, \"a\": {\"y\": 2, \"x\": [1, 2]}}").object();
    const QJsonObject b = QJsonDocument::fromJson("{\"a\": {\"x\": [1, 2], \"y\": 2}, \"b\": 1}").object();
    QCOMPARE(canonicalJson(a), canonicalJson(b));
    QCOMPARE(canonicalJson(a), QByteArray("{\"a\":{\"x\":[1,2],\"y\":2},\"b\":1}"));
    QCOMPARE(canonicalJson(QJsonValue(QStringLiteral("s"))), QByteArray("\"s\""));
    QCOMPARE(canonicalJson(QJsonValue(5)), QByteArray("5"));
    QVERIFY(canonicalJson(QJsonObject{{QStringLiteral("a"), 1}}) != canonicalJson(QJsonObject{{QStringLiteral("a"), 2}}));
}

void TestCommon::jsonTimeIsQDateTimesIsoText_data()
{
    QTest::addColumn<QDateTime>("time");
    const QDate day(2026, 11, 28);
    QTest::newRow("utc") << QDateTime(day, QTime(17, 41, 38, 86), Qt::UTC);
    QTest::newRow("utc, midnight") << QDateTime(day, QTime(0, 0), Qt::UTC);
    QTest::newRow("utc, last millisecond") << QDateTime(QDate(9999, 12, 31), QTime(23, 59, 59, 999), Qt::UTC);
    QTest::newRow("utc, year 987") << QDateTime(QDate(987, 1, 2), QTime(3, 4, 5, 6), Qt::UTC);
    QTest::newRow("utc, year 1") << QDateTime(QDate(1, 1, 1), QTime(1, 2, 3), Qt::UTC);
    QTest::newRow("utc, year 10000") << QDateTime(QDate(10000, 1, 1), QTime(1, 2, 3), Qt::UTC);
    QTest::newRow("utc, year -44") << QDateTime(QDate(-44, 3, 15), QTime(12, 0), Qt::UTC);
    QTest::newRow("local time") << QDateTime(day, QTime(17, 41, 38, 86), Qt::LocalTime);
    QTest::newRow("offset from utc") << QDateTime(day, QTime(17, 41, 38, 86), Qt::OffsetFromUTC, 3600);
    QTest::newRow("read from a run database") << QDateTime::fromString(QStringLiteral("2025-10-24T17:35:53.086Z"), Qt::ISODateWithMs);
}

// jsonTime writes what QDateTime writes (the text `runs list --json` always printed), or null for no time.
void TestCommon::jsonTimeIsQDateTimesIsoText()
{
    QFETCH(QDateTime, time);
    QVERIFY(time.isValid());
    const QJsonValue json = jsonTime(time);
    QVERIFY(json.isString());
    QCOMPARE(json.toString(), time.toString(Qt::ISODateWithMs));
    if (time.date().year() >= 1 && time.date().year() <= 9999)  // QDateTime reads back four-digit years only
        QCOMPARE(QDateTime::fromString(json.toString(), Qt::ISODateWithMs), time);
    QVERIFY(jsonTime(QDateTime()).isNull());
}

} // namespace

TY_TEST_CLASS(TestCommon)

#include "test_common.moc"
