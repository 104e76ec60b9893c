// The long-form metric table (long_form_metrics.h) read back by a CSV reader written here: every row of the runs
// asked for, in their order, each field reading back to what the database holds (the value exactly), a name with a
// comma and quotes quoted as RFC 4180 says, a tab-separated table and one metric alone; written into a file, the
// file replaced only when complete (a missing run or an unwritable place leaves it, naming what is wrong).

#include "test_suite.h"
#include "test_runs_support.h"

#include "long_form_metrics.h"
#include "run_writer.h"

#include <QFile>
#include <QTextStream>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace ty;

namespace {

// The fields of each line: quoted fields may hold the separator, doubled quotes and line breaks.
QList<QStringList> parseDelimited(const QString &text, QChar separator)
{
    QList<QStringList> lines;
    QStringList fields;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < text.size() && text.at(i + 1) == QLatin1Char('"'))
                field += c, ++i;
            else if (c == QLatin1Char('"'))
                quoted = false;
            else
                field += c;
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == separator) {
            fields << field;
            field.clear();
        } else if (c == QLatin1Char('\n')) {
            lines << (fields << field);
            fields.clear();
            field.clear();
        } else {
            field += c;
        }
    }
    return lines;
}

bool sameValue(const QString &text, double value)
{
    if (std::isnan(value))
        return text == QLatin1String("nan");
    if (std::isinf(value))
        return text == (value > 0 ? QLatin1String("inf") : QLatin1String("-inf"));
    bool ok = false;
    const double read = text.toDouble(&ok);
    // A value that is a float's is written as the float's shortest text: it reads back as that float.
    return ok && (read == value || double(float(read)) == value);
}

} // namespace

class TestLongFormMetrics : public QObject {
    Q_OBJECT

    testing::Fixture m_f;
    qint64 m_first = 0, m_second = 0;
    const QString m_oddName = QStringLiteral("val/\"odd\", name");

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_f.open());
        m_first = m_f.newRun(QStringLiteral("first"));
        m_second = m_f.newRun(QStringLiteral("second"));
        for (const qint64 id : {m_first, m_second}) {
            RunWriter writer(m_f.path, id, testing::kForever);
            QVERIFY(writer.start().ok());
            for (qint64 step = 1; step <= 30; ++step) {
                writer.appendMetric({QStringLiteral("train/loss"), step, int(step / 10), step * 0.0123, testing::valueAt(step) * double(id)});
                writer.appendMetric({QStringLiteral("train/acc"), step, int(step / 10), step * 0.0123, double(float(step / 7.0))});
            }
            writer.appendMetric({m_oddName, 30, 3, 1.5, std::numeric_limits<double>::quiet_NaN()});
            writer.appendMetric({m_oddName, 31, 3, 1.6, -std::numeric_limits<double>::infinity()});
            QVERIFY(writer.finish(RunStatus::Finished).ok());
        }
    }

    // Every row of the runs in the order asked for, each field as the database holds it.
    void rowsReadBackInTheOrderAsked()
    {
        for (const QChar separator : {QLatin1Char(','), QLatin1Char('\t')}) {
            QString text;
            QTextStream out(&text);
            const QList<RunInfo> runs{m_f.db->run(m_second).value(), m_f.db->run(m_first).value()};
            const Result<qint64> written = writeLongFormMetrics(*m_f.db, runs, out, LongFormOptions{separator, QString()});
            QVERIFY(written.ok());
            out.flush();
            const QList<QStringList> lines = parseDelimited(text, separator);
            QCOMPARE(lines.first(), (QStringList{"run", "uuid", "name", "step", "epoch", "time", "value"}));
            QList<QStringList> rows = lines.mid(1);
            QCOMPARE(written.value(), qint64(2 * 62));
            QCOMPARE(rows.size(), 2 * 62);
            int at = 0;
            for (const RunInfo &run : runs) {
                for (const MetricPoint &m : m_f.db->metrics(run.id).value()) {
                    const QStringList &row = rows.at(at++);
                    QCOMPARE(row.size(), 7);
                    QCOMPARE(row.at(0), QString::number(run.id));
                    QCOMPARE(row.at(1), run.uuid);
                    QCOMPARE(row.at(2), m.name);
                    QCOMPARE(row.at(3).toLongLong(), m.step);
                    QCOMPARE(row.at(4).toInt(), m.epoch);
                    QVERIFY(std::abs(row.at(5).toDouble() - m.time) <= 0.0005 + 1e-12);  // three decimals
                    QVERIFY2(sameValue(row.at(6), m.value), qPrintable(row.join(QLatin1Char('|'))));
                }
            }
            // The odd name is quoted (and only it), so that a plain split would go wrong.
            QVERIFY(text.contains(QStringLiteral("\"val/\"\"odd\"\", name\"")));
            QCOMPARE(text.count(QLatin1Char('"')), 2 * 2 * 6);
        }
    }

    void oneMetricAlone()
    {
        QString text;
        QTextStream out(&text);
        const Result<qint64> written = writeLongFormMetrics(*m_f.db, {m_f.db->run(m_first).value()}, out,
                                                            LongFormOptions{QLatin1Char(','), QStringLiteral("train/acc")});
        QVERIFY(written.ok());
        QCOMPARE(written.value(), qint64(30));
        out.flush();
        const QList<QStringList> rows = parseDelimited(text, QLatin1Char(',')).mid(1);
        QCOMPARE(rows.size(), 30);
        QCOMPARE(rows.at(6).at(6), QStringLiteral("1"));  // step 7: 7/7 as a float
        for (const QStringList &row : rows)
            QCOMPARE(row.at(2), QStringLiteral("train/acc"));
    }

    // The file has the stream's bytes; a missing run or an unwritable place leaves what was there.
    void fileReplacedOnlyWhenComplete()
    {
        const QString path = m_f.dir.filePath(QStringLiteral("metrics.csv"));
        QString text;
        QTextStream out(&text);
        QVERIFY(writeLongFormMetrics(*m_f.db, {m_f.db->run(m_first).value(), m_f.db->run(m_second).value()}, out).ok());
        out.flush();
        const Result<qint64> written = writeLongFormMetricsCsv(*m_f.db, {m_first, m_second}, path);
        QVERIFY(written.ok());
        QCOMPARE(written.value(), qint64(124));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(file.readAll()), text);
        file.close();

        const Result<qint64> missing = writeLongFormMetricsCsv(*m_f.db, {m_first, 99}, path);
        QVERIFY(!missing.ok());
        QVERIFY2(missing.error().toString().contains(QStringLiteral("no run with id 99")), qPrintable(missing.error().toString()));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(file.readAll()), text);
        file.close();

        const QString nowhere = m_f.dir.filePath(QStringLiteral("no such folder/metrics.csv"));
        const Result<qint64> unwritable = writeLongFormMetricsCsv(*m_f.db, {m_first}, nowhere);
        QVERIFY(!unwritable.ok());
        QVERIFY2(unwritable.error().toString().contains(nowhere), qPrintable(unwritable.error().toString()));
        QVERIFY(!QFile::exists(nowhere));
    }
};

TY_TEST_CLASS(TestLongFormMetrics)
#include "test_long_form_metrics.moc"
