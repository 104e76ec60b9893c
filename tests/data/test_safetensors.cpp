// safetensors files: round trips of every dtype, a file written by hand from the format's description, and
// every kind of damaged or hostile file refused with a message, never a crash or a huge allocation.

#include "test_datasets.h"

#include "safetensors_file.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <QtEndian>

#include <sys/stat.h>

using namespace ty;

namespace {

QByteArray withHeader(const QByteArray &json, const QByteArray &data)
{
    QByteArray bytes(8, '\0');
    qToLittleEndian<quint64>(quint64(json.size()), bytes.data());
    return bytes + json + data;
}

} // namespace

void TestDatasets::safetensorsRoundTrip()
{
    TensorFile file;
    file.metadata = {{QStringLiteral("format"), QStringLiteral("test")}, {QStringLiteral("note"), QStringLiteral("äöü \"quoted\"")}};
    const float weights[6] = {1.5f, -2.f, 3.25f, 0.f, 1e-30f, 7.f};
    file.tensors.append(NamedTensor{QStringLiteral("fc1.weight"), TensorDType::F32, {2, 3}, QByteArray(reinterpret_cast<const char *>(weights), 24)});
    const qint64 step = 1234567890123;
    file.tensors.append(NamedTensor{QStringLiteral("optimizer/fc1.weight/step"), TensorDType::I64, {}, QByteArray(reinterpret_cast<const char *>(&step), 8)});
    file.tensors.append(NamedTensor{QStringLiteral("empty"), TensorDType::F64, {0, 4}, QByteArray()});
    file.tensors.append(NamedTensor{QStringLiteral("flags"), TensorDType::Bool, {3}, QByteArray("\x01\x00\x01", 3)});
    file.tensors.append(NamedTensor{QStringLiteral("half"), TensorDType::BF16, {1}, QByteArray("\x80\x3f", 2)});
    const QByteArray bytes = encodeSafetensors(file);
    const quint64 headerSize = qFromLittleEndian<quint64>(bytes.constData());
    QCOMPARE(headerSize % 8, quint64(0));  // the data starts 8-byte aligned
    QCOMPARE(qint64(bytes.size()), qint64(8 + headerSize + 24 + 8 + 3 + 2));

    const QString path = m_dir.filePath(QStringLiteral("round-trip.safetensors"));
    QVERIFY(writeFileAtomically(path, bytes).ok());
    const Result<TensorFile> read = readSafetensors(path);
    QVERIFY2(read.ok(), qPrintable(read.error().toString()));
    QCOMPARE(read.value().metadata, file.metadata);
    QCOMPARE(read.value().tensors.size(), file.tensors.size());
    for (int i = 0; i < file.tensors.size(); ++i) {
        QCOMPARE(read.value().tensors.at(i).name, file.tensors.at(i).name);  // in file order
        QCOMPARE(read.value().tensors.at(i).dtype, file.tensors.at(i).dtype);
        QCOMPARE(read.value().tensors.at(i).shape, file.tensors.at(i).shape);
        QCOMPARE(read.value().tensors.at(i).data, file.tensors.at(i).data);
    }
    QCOMPARE(read.value().find(QStringLiteral("fc1.weight"))->shapeText(), QStringLiteral("[2, 3]"));
    QVERIFY(!read.value().find(QStringLiteral("missing")));
}

// A file made by hand from the format's description (as another library writes it: keys in any order, data in
// another order than the header's keys) reads back.
void TestDatasets::safetensorsWrittenByHand()
{
    const QByteArray json = R"({"b":{"dtype":"I32","shape":[2],"data_offsets":[4,12]},"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"__metadata__":{"k":"v"}})";
    const QByteArray data = QByteArray("\x01\x02\x03\x04", 4) + QByteArray("\x07\x00\x00\x00\xff\xff\xff\xff", 8);
    const Result<TensorFile> file = decodeSafetensors(withHeader(json, data), QStringLiteral("by-hand"));
    QVERIFY2(file.ok(), qPrintable(file.error().toString()));
    QCOMPARE(file.value().tensors.size(), 2);
    QCOMPARE(file.value().tensors.at(0).name, QStringLiteral("a"));  // data order
    const NamedTensor *b = file.value().find(QStringLiteral("b"));
    QCOMPARE(b->dtype, TensorDType::I32);
    qint32 values[2];
    std::memcpy(values, b->data.constData(), 8);
    QCOMPARE(values[0], 7);
    QCOMPARE(values[1], -1);
    QCOMPARE(file.value().metadata.value(QStringLiteral("k")), QStringLiteral("v"));
}

void TestDatasets::safetensorsDamagedFilesNeverCrash_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    const QByteArray four("\0\0\0\0", 4);
    auto one = [](const QByteArray &entry) { return QByteArray(R"({"t":)") + entry + "}"; };
    QTest::newRow("empty") << QByteArray() << "shorter than its 8-byte header length";
    QTest::newRow("header claims 5 GB") << withHeader("{}", {}).replace(0, 8, QByteArray("\x00\x00\x00\x40\x01\x00\x00\x00", 8)) << "its header claims";
    QTest::newRow("header longer than the file") << withHeader("{}", {}).replace(0, 1, "\x40") << "its header claims 64 bytes";
    QTest::newRow("header not JSON") << withHeader("{\"t\":", {}) << "not a JSON object";
    QTest::newRow("header an array") << withHeader("[1,2]", {}) << "not a JSON object";
    QTest::newRow("unknown dtype") << withHeader(one(R"({"dtype":"F128","shape":[1],"data_offsets":[0,4]})"), four) << "unknown or missing dtype";
    QTest::newRow("negative extent") << withHeader(one(R"({"dtype":"F32","shape":[-1],"data_offsets":[0,4]})"), four) << "whole numbers >= 0";
    QTest::newRow("fractional extent") << withHeader(one(R"({"dtype":"F32","shape":[1.5],"data_offsets":[0,4]})"), four) << "whole numbers >= 0";
    QTest::newRow("shape not an array") << withHeader(one(R"({"dtype":"F32","shape":4,"data_offsets":[0,4]})"), four) << "missing or absurd shape";
    QTest::newRow("shape overflowing 64 bits") << withHeader(one(R"({"dtype":"F32","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,4]})"), four)
                                               << "needs more than 2^63 bytes";
    QTest::newRow("offsets beyond the data") << withHeader(one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})"), four) << "lie outside the 4 bytes";
    QTest::newRow("offsets reversed") << withHeader(one(R"({"dtype":"U8","shape":[0],"data_offsets":[4,0]})"), four) << "lie outside";
    QTest::newRow("size not the shape's") << withHeader(one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,4]})"), four) << "needs 8 bytes";
    QTest::newRow("overlap") << withHeader(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", four)
                             << "overlaps another's";
    QTest::newRow("gap") << withHeader(one(R"({"dtype":"U8","shape":[2],"data_offsets":[2,4]})"), four) << "leaves a gap";
    QTest::newRow("bytes after the data") << withHeader(one(R"({"dtype":"U8","shape":[2],"data_offsets":[0,2]})"), four) << "2 bytes after the last tensor's data";
    QTest::newRow("metadata not strings") << withHeader(R"({"__metadata__":{"a":1}})", {}) << "is not a string";
    QTest::newRow("truncated") << withHeader(one(R"({"dtype":"F32","shape":[4],"data_offsets":[0,16]})"), four) << "lie outside the 4 bytes";
}

void TestDatasets::safetensorsDamagedFilesNeverCrash()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const QString path = m_dir.filePath(QStringLiteral("damaged.safetensors"));
    QVERIFY(writeFileAtomically(path, bytes).ok());
    const Result<TensorFile> file = readSafetensors(path);
    QVERIFY(!file.ok());
    QCOMPARE(file.error().file, path);
    QVERIFY2(file.error().message.contains(expected), qPrintable(file.error().message));
}

// NaN and infinities are found in every floating-point dtype, by their bits; integers are always finite.
void TestDatasets::safetensorsFindsNonFiniteValues()
{
    auto tensor = [](TensorDType dtype, QByteArray bytes) { return NamedTensor{QStringLiteral("t"), dtype, {1}, bytes}; };
    const float nan = std::nanf(""), one = 1.0f, inf = INFINITY, big = 3.0e38f;
    const double dnan = std::nan(""), done = 1.0;
    QVERIFY(tensorIsFinite(tensor(TensorDType::F32, QByteArray(reinterpret_cast<const char *>(&one), 4))));
    QVERIFY(tensorIsFinite(tensor(TensorDType::F32, QByteArray(reinterpret_cast<const char *>(&big), 4))));
    QVERIFY(!tensorIsFinite(tensor(TensorDType::F32, QByteArray(reinterpret_cast<const char *>(&nan), 4))));
    QVERIFY(!tensorIsFinite(tensor(TensorDType::F32, QByteArray(reinterpret_cast<const char *>(&one), 4) + QByteArray(reinterpret_cast<const char *>(&inf), 4))));
    QVERIFY(tensorIsFinite(tensor(TensorDType::F64, QByteArray(reinterpret_cast<const char *>(&done), 8))));
    QVERIFY(!tensorIsFinite(tensor(TensorDType::F64, QByteArray(reinterpret_cast<const char *>(&dnan), 8))));
    QVERIFY(tensorIsFinite(tensor(TensorDType::F16, QByteArray("\x00\x3c", 2))));   // 1.0
    QVERIFY(!tensorIsFinite(tensor(TensorDType::F16, QByteArray("\x00\x7c", 2))));  // +inf
    QVERIFY(tensorIsFinite(tensor(TensorDType::BF16, QByteArray("\x80\x3f", 2))));  // 1.0
    QVERIFY(!tensorIsFinite(tensor(TensorDType::BF16, QByteArray("\xc0\x7f", 2)))); // NaN
    QVERIFY(tensorIsFinite(tensor(TensorDType::I32, QByteArray("\xff\xff\xff\x7f", 4))));
}

// Only regular files are read (a FIFO would block), and only up to the size allowed.
void TestDatasets::safetensorsOnlyRegularFilesOfBoundedSize()
{
    QCOMPARE(readSafetensors(m_dir.path()).error().message, QStringLiteral("not a regular file (a folder)"));
    const QString fifo = m_dir.filePath(QStringLiteral("pipe.safetensors"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    QCOMPARE(readSafetensors(fifo).error().message, QStringLiteral("not a regular file (a FIFO)"));
    QVERIFY(readSafetensors(m_dir.filePath(QStringLiteral("none.safetensors"))).error().message.contains(QStringLiteral("not found")));
    const QString big = m_dir.filePath(QStringLiteral("big.safetensors"));
    QVERIFY(writeFileAtomically(big, withHeader("{}", QByteArray(4096, ' '))).ok());
    QVERIFY(readSafetensors(big, 1024).error().message.contains(QStringLiteral("more than the 1024 bytes accepted")));
}
