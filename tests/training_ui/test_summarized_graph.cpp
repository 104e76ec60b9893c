// SummarizedGraph: the per-block minimum and maximum follow appends and notice other changes; reducing to pixel
// columns keeps every column's extremes (or its gap); a graph of a million points draws two points per column
// while its data keeps them all.

#include "test_suite.h"
#include "plots/summarized_graph.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <random>

using namespace ty;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Noisy points at keys 0, 1, 2, ...; every 97th value NaN, and a run of NaNs at 5000..5999.
QVector<QCPGraphData> noisyPoints(int count, quint32 seed = 1)
{
    std::mt19937 rng(seed);
    std::normal_distribution<double> noise(0.0, 1.0);
    QVector<QCPGraphData> points;
    for (int i = 0; i < count; ++i) {
        const bool gap = i % 97 == 13 || (i >= 5000 && i < 6000);
        points.append(QCPGraphData(i, gap ? kNaN : 1.0 / (1 + i * 0.001) + 0.1 * noise(rng)));
    }
    return points;
}

std::pair<double, double> bruteRange(const QVector<QCPGraphData> &points, int from, int to)
{
    double low = INFINITY, high = -INFINITY;
    for (int i = from; i < to; ++i)
        if (std::isfinite(points[i].value)) {
            low = std::min(low, points[i].value);
            high = std::max(high, points[i].value);
        }
    return low > high ? std::pair{kNaN, kNaN} : std::pair{low, high};
}

bool sameValue(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

class LineProbe : public SummarizedGraph {
public:
    using SummarizedGraph::SummarizedGraph;
    QVector<QCPGraphData> lineData() const
    {
        QVector<QCPGraphData> out;
        getOptimizedLineData(&out, data()->constBegin(), data()->constEnd());
        return out;
    }
};

} // namespace

class TestSummarizedGraph : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void blockRanges();
    void summariesFollowAppendsAndNoticeInserts();
    void columnsKeepTheirExtremes();
    void millionPointGraph();
};

void TestSummarizedGraph::blockRanges()
{
    const QVector<QCPGraphData> points = noisyPoints(20000);
    BlockMinMax blocks;
    blocks.update(points.constData(), points.size());
    QCOMPARE(blocks.summarizedBlocks(), 20000 / BlockMinMax::kBlockSize);
    const std::pair<int, int> ranges[] = {{0, 20000}, {0, 1},        {3, 64},     {63, 129},
                                          {100, 19999}, {5000, 6000}, {5010, 5900}, {4990, 6010}};
    for (const auto &[from, to] : ranges) {
        const auto [low, high] = blocks.range(points.constData(), from, to);
        const auto [wantLow, wantHigh] = bruteRange(points, from, to);
        QVERIFY2(sameValue(low, wantLow) && sameValue(high, wantHigh), qPrintable(QStringLiteral("%1..%2").arg(from).arg(to)));
    }
}

void TestSummarizedGraph::summariesFollowAppendsAndNoticeInserts()
{
    QVector<QCPGraphData> points = noisyPoints(1000);
    BlockMinMax blocks;
    blocks.update(points.constData(), points.size());
    points.append(QCPGraphData(1000, 50.0));  // a new maximum in an appended, not yet summarised block
    for (int i = 1001; i < 1300; ++i)
        points.append(QCPGraphData(i, 0.5));
    blocks.update(points.constData(), points.size());
    QCOMPARE(blocks.summarizedBlocks(), 1300 / BlockMinMax::kBlockSize);
    QCOMPARE(blocks.range(points.constData(), 0, points.size()).second, 50.0);

    // A point inserted in the middle shifts the rest: the summaries are rebuilt, not extended.
    points.insert(10, QCPGraphData(9.5, -40.0));
    blocks.update(points.constData(), points.size());
    QCOMPARE(blocks.range(points.constData(), 64, 1301).first, bruteRange(points, 64, 1301).first);
    QCOMPARE(blocks.range(points.constData(), 0, 64).first, -40.0);
}

void TestSummarizedGraph::columnsKeepTheirExtremes()
{
    const QVector<QCPGraphData> points = noisyPoints(50000);
    BlockMinMax blocks;
    blocks.update(points.constData(), points.size());
    std::vector<double> boundaries;
    for (int c = 1; c < 300; ++c)
        boundaries.push_back(c * 50000.0 / 300 + 0.25);
    boundaries.push_back(49998.5);  // a last column of one point
    QVector<QCPGraphData> out;
    reduceToColumns(points.constData(), 0, points.size(), boundaries, blocks, &out);

    int at = 0, start = 0;
    for (size_t column = 0; column <= boundaries.size(); ++column) {
        const auto inColumn = [&](double key) { return column == boundaries.size() || key < boundaries[column]; };
        int end = start;
        while (end < points.size() && inColumn(points[end].key))
            ++end;
        int produced = 0;
        while (at + produced < out.size() && inColumn(out[at + produced].key))
            ++produced;
        const QString where = QStringLiteral("column %1").arg(column);
        const auto [low, high] = bruteRange(points, start, end);
        if (end - start <= 2) {
            QCOMPARE(produced, end - start);
        } else if (std::isnan(low)) {
            QVERIFY2(produced == 1 && std::isnan(out[at].value), qPrintable(where));
        } else if (low == high) {  // e.g. one finite value after a run of NaNs
            QVERIFY2(produced == 1 && out[at].value == low, qPrintable(where));
        } else {
            QVERIFY2(produced == 2, qPrintable(where));
            QCOMPARE(std::min(out[at].value, out[at + 1].value), low);
            QCOMPARE(std::max(out[at].value, out[at + 1].value), high);
            // The extreme nearer to the previous point comes first.
            if (at > 0 && !std::isnan(out[at - 1].value))
                QVERIFY2(std::abs(out[at - 1].value - out[at].value) <= std::abs(out[at - 1].value - out[at + 1].value),
                         qPrintable(where));
        }
        at += produced;
        start = end;
    }
    QCOMPARE(at, out.size());
}

void TestSummarizedGraph::millionPointGraph()
{
    QCustomPlot plot;
    plot.resize(800, 400);
    auto *graph = new LineProbe(plot.xAxis, plot.yAxis);
    graph->setAdaptiveSampling(true);
    QVector<QCPGraphData> points;
    points.reserve(1000000);
    for (int i = 0; i < 1000000; ++i)
        points.append(QCPGraphData(i, std::sin(i * 0.001) + (i == 765432 ? 9.0 : 0.0)));
    graph->data()->set(points, true);
    plot.xAxis->setRange(0, 1000000);
    plot.yAxis->setRange(-2, 10);
    plot.replot();  // lays the axis rect out and draws through the reduction
    QCOMPARE(graph->data()->size(), 1000000);
    const QVector<QCPGraphData> line = graph->lineData();
    QVERIFY(line.size() > 800);
    QVERIFY(line.size() <= 2 * (plot.axisRect()->width() + 2));
    double high = -INFINITY;
    for (const QCPGraphData &p : line)
        high = std::max(high, p.value);
    QCOMPARE(high, std::sin(765432 * 0.001) + 9.0);  // a one-sample spike still shows
}

TY_TEST_CLASS(TestSummarizedGraph)

#include "test_summarized_graph.moc"
