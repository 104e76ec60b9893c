// dataset.text: the vocabulary, the windows and their labels, the test split, lower-casing, the character
// names, and files that cannot be read as text (named with the node, field and line).

#include "test_datasets.h"

#include "dataset_fixtures.h"
#include "text_dataset.h"

#include <QSet>
#include <QTest>

#include <unistd.h>
#include <sys/stat.h>

using namespace fixtures;

namespace {

// Characters of `split`'s sample `i` and its label, through the vocabulary.
QString windowText(const ty::DataSplit &split, int64_t i, const QStringList &vocabulary)
{
    QString text;
    const int64_t width = split.x.sampleSize();
    for (int64_t j = 0; j < width; ++j) {
        const int64_t id = split.x.isFloat ? int64_t(split.x.floats[size_t(i * width + j)]) : split.x.bytes[size_t(i * width + j)];
        text += vocabulary.value(int(id));
    }
    return text + QLatin1Char('>') + vocabulary.value(int(split.y.classes[size_t(i)]));
}

} // namespace

void TestDatasets::textWindowsAndLabels()
{
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("abc.txt")), "abcab cab"));  // 9 characters
    const ty::DatasetRequest r = request(QStringLiteral("dataset.text"),
                                         {{QStringLiteral("path"), QStringLiteral("abc.txt")}, {QStringLiteral("window"), 3},
                                          {QStringLiteral("stride"), 2}, {QStringLiteral("test_fraction"), 0.0},
                                          {QStringLiteral("val_fraction"), 0.0}},
                                         m_dir.path());
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(r);
    QVERIFY2(shape.ok(), qPrintable(shape.error().toString()));
    QCOMPARE(shape.value().sampleShape, (std::vector<int64_t>{3}));
    QCOMPARE(shape.value().classLabels, (QStringList{QStringLiteral("space"), QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
    QCOMPARE(shape.value().sampleCount, int64_t(3));  // windows at 0, 2, 4 (the one at 6 has no next character)

    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(r);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    const ty::LoadedDataset &d = loaded.value();
    QCOMPARE(d.classNames, shape.value().classLabels);
    QCOMPARE(d.train.size(), int64_t(3));
    QVERIFY(!d.train.x.isFloat);
    QCOMPARE(d.train.x.scale, 1.0f);
    QStringList windows;
    for (int64_t i = 0; i < d.train.size(); ++i)
        windows << windowText(d.train, i, d.classNames);
    QCOMPARE(windows, (QStringList{QStringLiteral("abc>a"), QStringLiteral("cab>space"), QStringLiteral("bspacec>a")}));
    QCOMPARE(d.fingerprint, QString::fromLatin1(sha256Hex({QByteArray("abcab cab")})));
}

void TestDatasets::textSplitsAreDisjointAndSeeded()
{
    QByteArray text;
    for (int i = 0; i < 300; ++i)
        text += QByteArray::number(i * 7919 % 1000) + '\n';
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("numbers.txt")), text));
    const auto load = [&](int seed) {
        return ty::loadDataset(request(QStringLiteral("dataset.text"),
                                       {{QStringLiteral("path"), QStringLiteral("numbers.txt")}, {QStringLiteral("window"), 8},
                                        {QStringLiteral("test_fraction"), 0.25}, {QStringLiteral("val_fraction"), 0.2},
                                        {QStringLiteral("split_seed"), seed}},
                                       m_dir.path()));
    };
    const ty::Result<ty::LoadedDataset> a = load(1), b = load(1), c = load(2);
    QVERIFY2(a.ok(), qPrintable(a.error().toString()));
    const int64_t windows = int64_t(text.size()) - 8;
    const ty::LoadedDataset &d = a.value();
    QCOMPARE(d.test.size(), int64_t(std::llround(0.25 * double(windows))));
    QCOMPARE(d.train.size() + d.val.size() + d.test.size(), windows);
    QCOMPARE(d.shape.numClasses, int64_t(11));  // digits and the line break
    QCOMPARE(d.classNames.last(), QStringLiteral("9"));
    QCOMPARE(d.classNames.first(), QStringLiteral("\\n"));
    // Same seed, same split; another seed, another test split.
    QCOMPARE(b.value().test.x.bytes, d.test.x.bytes);
    QVERIFY(c.value().test.x.bytes != d.test.x.bytes);
    // Every window's label is the character that follows it in the file.
    QSet<QString> seen;
    for (const ty::DataSplit *split : {&d.train, &d.val, &d.test})
        for (int64_t i = 0; i < split->size(); ++i) {
            const QString w = windowText(*split, i, d.classNames).replace(QStringLiteral("\\n"), QStringLiteral("\n"));
            QVERIFY2(QString::fromLatin1(text).contains(w.left(8) + w.mid(9)), qPrintable(w));
            seen.insert(w);
        }
    QVERIFY(seen.size() > windows / 2);
}

void TestDatasets::textLowercaseAndCharacterNames()
{
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("mixed.txt")), QStringLiteral("Ébène\tAB ab\x07").toUtf8()));
    const ty::Result<ty::DatasetShape> mixed = ty::describeDataset(
        request(QStringLiteral("dataset.text"), {{QStringLiteral("path"), QStringLiteral("mixed.txt")}, {QStringLiteral("window"), 2}}, m_dir.path()));
    QVERIFY2(mixed.ok(), qPrintable(mixed.error().toString()));
    QCOMPARE(mixed.value().classLabels, (QStringList{QStringLiteral("U+0007"), QStringLiteral("\\t"), QStringLiteral("space"), QStringLiteral("A"),
                                                     QStringLiteral("B"), QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("e"),
                                                     QStringLiteral("n"), QStringLiteral("É"), QStringLiteral("è")}));
    const ty::Result<ty::DatasetShape> lower = ty::describeDataset(
        request(QStringLiteral("dataset.text"),
                {{QStringLiteral("path"), QStringLiteral("mixed.txt")}, {QStringLiteral("window"), 2}, {QStringLiteral("lowercase"), true}}, m_dir.path()));
    QVERIFY2(lower.ok(), qPrintable(lower.error().toString()));
    QCOMPARE(lower.value().numClasses, int64_t(9));
    QVERIFY(lower.value().classLabels.contains(QStringLiteral("é")));

    // New text to ids under a vocabulary, and a character it lacks.
    const ty::Result<std::vector<int64_t>> ids = ty::characterIds(QStringLiteral("ab\t"), mixed.value().classLabels);
    QVERIFY(ids.ok());
    QCOMPARE(ids.value(), (std::vector<int64_t>{5, 6, 1}));
    const ty::Result<std::vector<int64_t>> unknown = ty::characterIds(QStringLiteral("abz"), mixed.value().classLabels);
    QVERIFY(!unknown.ok());
    QVERIFY2(unknown.error().message.contains(QStringLiteral("'z'")), qPrintable(unknown.error().message));
}

void TestDatasets::textErrors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("window");
    QTest::addColumn<QString>("field");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("message");
    QTest::newRow("missing") << QByteArray() << 4 << "path" << 0 << "not found";
    QTest::newRow("empty") << QByteArray("") << 4 << "window" << 0 << "the text has 0 characters, too few for one window of 4";
    QTest::newRow("short") << QByteArray("abcd") << 4 << "window" << 0 << "the text has 4 characters";
    QTest::newRow("not utf-8") << QByteArray("one\ntwo\nthr\xff\xfe") << 2 << "path" << 3 << "is not UTF-8 text";
    QTest::newRow("truncated utf-8") << QByteArray("ok\n\xc3") << 2 << "path" << 2 << "is not UTF-8 text";
    // 1 MiB in windows of 4,096 would store 4.3 G values: refused before any is stored.
    QTest::newRow("too many windows") << QByteArray(1 << 20, 'a') << 4096 << "stride" << 0 << "windows of 4096 characters would hold";
}

void TestDatasets::textErrors()
{
    QFETCH(QByteArray, text);
    QFETCH(int, window);
    QFETCH(QString, field);
    QFETCH(int, line);
    QFETCH(QString, message);
    const QString path = m_dir.filePath(QStringLiteral("bad-%1.txt").arg(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-')));
    if (!text.isNull())
        QVERIFY(writeFile(path, text));
    const ty::DatasetRequest r = request(QStringLiteral("dataset.text"), {{QStringLiteral("path"), path}, {QStringLiteral("window"), window}},
                                         QString(), QStringLiteral("corpus"));
    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(r);
    QVERIFY(!loaded.ok());
    const ty::Error &e = loaded.error();
    QVERIFY2(e.message.contains(message), qPrintable(e.toString()));
    QCOMPARE(e.field, field);
    QCOMPARE(e.line, line);
    QCOMPARE(e.file, path);
    QCOMPARE(e.node, QStringLiteral("corpus"));
    const ty::Result<ty::DatasetShape> described = ty::describeDataset(r);
    QVERIFY2(!described.ok(), "describeDataset accepted a text that loadDataset refuses");
    QCOMPARE(described.error().toString(), e.toString());
}

void TestDatasets::textRefusesKeptClasses()
{
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("kept.txt")), "abcabc"));
    const ty::DatasetRequest r = request(QStringLiteral("dataset.text"),
                                         {{QStringLiteral("path"), QStringLiteral("kept.txt")}, {QStringLiteral("window"), 2},
                                          {QStringLiteral("keep_classes"), QStringLiteral("a,b")}},
                                         m_dir.path(), QStringLiteral("corpus"));
    for (const ty::Error &e : {ty::describeDataset(r).error(), ty::loadDataset(r).error()}) {
        QCOMPARE(e.node, QStringLiteral("corpus"));
        QCOMPARE(e.field, QStringLiteral("keep_classes"));
        QVERIFY2(e.message.contains(QStringLiteral("does not apply to text")), qPrintable(e.toString()));
    }
}

void TestDatasets::textOnlyFromRegularFiles()
{
    const QString fifo = m_dir.filePath(QStringLiteral("pipe.txt"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    for (const QString &path : {fifo, m_dir.path()}) {
        const ty::Result<ty::DatasetShape> described =
            ty::describeDataset(request(QStringLiteral("dataset.text"), {{QStringLiteral("path"), path}}));
        QVERIFY(!described.ok());
        QVERIFY2(described.error().message.contains(QStringLiteral("not a regular file")), qPrintable(described.error().toString()));
    }
}
