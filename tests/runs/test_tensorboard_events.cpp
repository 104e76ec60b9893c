// TensorBoard event files read back by an independent reader (tests/common/tensorboard_reader.h): the TFRecord
// framing, both CRC-32C checksums (computed bit by bit, not with the writer's table), and every Event decoded from
// its protocol buffer bytes: the first says file_version "brain.Event:2", then one per metric row with its step,
// tag, value and wall time. And the CRC against the standard check value. The live file a run appends to while it
// trains (tensorboard_event_file.h): its batches, its restart mark, names that are never written over.

#include "test_suite.h"
#include "tensorboard_event_file.h"
#include "tensorboard_events.h"
#include "tensorboard_reader.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

#include <cstring>

using namespace ty;
using tytest::crc32cBitwise;
using tytest::TensorBoardEvent;

class TestTensorBoardEvents : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void crcMatchesTheStandardCheckValue()
    {
        QCOMPARE(crc32c(QByteArrayLiteral("123456789")), 0xE3069283u);
        QCOMPARE(crc32c(QByteArray()), 0u);
        const QByteArray some = QByteArrayLiteral("val/accuracy\x00\x01\xff");
        QCOMPARE(crc32c(some), crc32cBitwise(some));
    }

    void eventsReadBackEqualTheRows()
    {
        QList<MetricPoint> rows;
        for (int step = 1; step <= 300; ++step) {
            rows.append({QStringLiteral("train/loss"), step, 1 + step / 100, step * 0.05, 2.0 / step});
            if (step % 100 == 0)
                rows.append({QStringLiteral("val/accuracy"), step, step / 100, step * 0.05 + 0.5, 0.5 + step / 1000.0});
        }
        rows.append({QStringLiteral("val/loss"), 300, 3, 15.6, std::numeric_limits<double>::quiet_NaN()});
        QTemporaryDir dir;
        const QDateTime started = QDateTime::fromSecsSinceEpoch(1795000000, Qt::UTC).addMSecs(250);
        const Result<QString> written = writeTensorBoardEvents(dir.filePath(QStringLiteral("1-mlp")), started,
                                                               QStringLiteral("host one"), rows);
        QVERIFY2(written.ok(), written.ok() ? "" : qPrintable(written.error().toString()));
        QCOMPARE(QFileInfo(written.value()).fileName(), QStringLiteral("events.out.tfevents.1795000000.host_one"));

        QList<TensorBoardEvent> events;
        QString problem;
        QVERIFY2(tytest::readTensorBoardFile(written.value(), &events, &problem), qPrintable(problem));
        QCOMPARE(events.size(), rows.size() + 1);
        QCOMPARE(events.first().fileVersion, QStringLiteral("brain.Event:2"));
        QCOMPARE(events.first().wallTime, 1795000000.25);
        for (int i = 0; i < rows.size(); ++i) {
            const TensorBoardEvent &event = events.at(i + 1);
            QCOMPARE(event.step, rows[i].step);
            QCOMPARE(event.tag, rows[i].name);
            QVERIFY(event.hasValue);
            if (std::isnan(rows[i].value))
                QVERIFY(std::isnan(event.value));
            else
                QCOMPARE(event.value, float(rows[i].value));
            QVERIFY(std::abs(event.wallTime - (1795000000.25 + rows[i].time)) < 1e-6);
        }
    }

    // The live file: rows appended batch by batch read back as written, after file_version; a second file of the
    // same second (a resume) gets a name of its own, never the first one's, and begins with the restart mark.
    void liveFileAppendsBatchesUnderANameOfItsOwn()
    {
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("board/7-blobs"));
        const QDateTime created = QDateTime::fromSecsSinceEpoch(1795000100, Qt::UTC).addMSecs(500);
        Result<std::unique_ptr<TensorBoardEventFile>> first = TensorBoardEventFile::create(folder, created, QStringLiteral("h"));
        QVERIFY2(first.ok(), first.ok() ? "" : qPrintable(first.error().toString()));
        QCOMPARE(first.value()->path(), QDir(folder).filePath(QStringLiteral("events.out.tfevents.1795000100.h")));
        std::vector<MetricPoint> rows;
        for (int step = 1; step <= 50; ++step)
            rows.push_back({step % 10 == 0 ? QStringLiteral("val/préc") : QStringLiteral("train/loss"), step, 1, step * 0.1, 1.0 / step});
        const double start = 1795000000.0;
        for (size_t at = 0; at < rows.size(); at += 20)
            QVERIFY(first.value()->append(start, rows.data() + at, std::min<size_t>(20, rows.size() - at)).ok());
        QVERIFY(first.value()->append(start, rows.data(), 0).ok());

        Result<std::unique_ptr<TensorBoardEventFile>> second = TensorBoardEventFile::create(folder, created, QStringLiteral("h"), 41);
        QVERIFY2(second.ok(), second.ok() ? "" : qPrintable(second.error().toString()));
        QCOMPARE(second.value()->path(), first.value()->path() + QStringLiteral(".2"));
        QVERIFY(second.value()->append(start, rows.data() + 40, 10).ok());

        QList<TensorBoardEvent> events;
        QString problem;
        QVERIFY2(tytest::readTensorBoardFile(first.value()->path(), &events, &problem), qPrintable(problem));
        QCOMPARE(events.size(), int(rows.size()) + 1);
        QCOMPARE(events.first().fileVersion, QStringLiteral("brain.Event:2"));
        QCOMPARE(events.first().wallTime, 1795000100.5);
        for (size_t i = 0; i < rows.size(); ++i) {
            QCOMPARE(events.at(int(i) + 1).tag, rows[i].name);
            QCOMPARE(events.at(int(i) + 1).step, rows[i].step);
            QCOMPARE(events.at(int(i) + 1).value, float(rows[i].value));
            QCOMPARE(events.at(int(i) + 1).wallTime, start + rows[i].time);
        }
        QList<TensorBoardEvent> resumed;
        QVERIFY2(tytest::readTensorBoardFile(second.value()->path(), &resumed, &problem), qPrintable(problem));
        QCOMPARE(resumed.size(), 12);
        QCOMPARE(resumed.at(0).fileVersion, QStringLiteral("brain.Event:2"));
        QCOMPARE(resumed.at(1).sessionStatus, 1);  // START
        QCOMPARE(resumed.at(1).step, qint64(41));
        QVERIFY(!resumed.at(1).hasValue);
        QCOMPARE(resumed.at(2).step, qint64(41));
        QCOMPARE(resumed.at(11).step, qint64(50));
        QCOMPARE(resumed.at(11).tag, QStringLiteral("val/préc"));
    }

    // A folder that cannot be made (a file is in the way) is an error naming it, and nothing is written.
    void liveFileInAFolderThatCannotBeMade()
    {
        QTemporaryDir dir;
        QFile blocker(dir.filePath(QStringLiteral("board")));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        const Result<std::unique_ptr<TensorBoardEventFile>> file =
            TensorBoardEventFile::create(dir.filePath(QStringLiteral("board/1-run")), QDateTime::currentDateTimeUtc(), QStringLiteral("h"));
        QVERIFY(!file.ok());
        QVERIFY2(file.error().file.endsWith(QStringLiteral("board/1-run")), qPrintable(file.error().toString()));
        QCOMPARE(QFileInfo(blocker.fileName()).size(), 0);
    }

    // The folder `runs export --tensorboard` and the live file share: the id, then the name made safe.
    void runFolderNames()
    {
        QCOMPARE(tensorBoardRunFolderName(3, QStringLiteral("Fashion-MNIST MLP")), QStringLiteral("3-Fashion-MNIST_MLP"));
        QCOMPARE(tensorBoardRunFolderName(4, QStringLiteral("a/../b")), QStringLiteral("4-a_.._b"));
        QCOMPARE(tensorBoardRunFolderName(5, QString()), QStringLiteral("5"));
        QCOMPARE(tensorBoardRunFolderName(6, QString(70, QLatin1Char('x'))).size(), 2 + 60);
    }
};

TY_TEST_CLASS(TestTensorBoardEvents)
#include "test_tensorboard_events.moc"
