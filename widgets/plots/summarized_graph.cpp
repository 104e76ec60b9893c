#include "summarized_graph.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ty {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool samePoint(const QCPGraphData &a, const QCPGraphData &b)
{
    // NaN values compare unequal: treat two NaNs as the same value.
    return a.key == b.key && (a.value == b.value || (std::isnan(a.value) && std::isnan(b.value)));
}

void widen(double value, double &low, double &high)
{
    if (!std::isfinite(value))
        return;
    low = std::min(low, value);
    high = std::max(high, value);
}

} // namespace

void BlockMinMax::update(const QCPGraphData *data, int size)
{
    const bool unchangedPrefix = m_size > 0 && size >= m_size && samePoint(data[0], m_first) && samePoint(data[m_size - 1], m_last);
    if (!unchangedPrefix) {
        m_min.clear();
        m_max.clear();
    }
    const int blocks = size / kBlockSize;
    m_min.reserve(size_t(blocks));
    m_max.reserve(size_t(blocks));
    for (int block = int(m_min.size()); block < blocks; ++block) {
        double low = std::numeric_limits<double>::infinity(), high = -low;
        for (int i = block * kBlockSize; i < (block + 1) * kBlockSize; ++i)
            widen(data[i].value, low, high);
        m_min.push_back(low);
        m_max.push_back(high);
    }
    m_size = size;
    if (size > 0) {
        m_first = data[0];
        m_last = data[size - 1];
    }
}

std::pair<double, double> BlockMinMax::range(const QCPGraphData *data, int from, int to) const
{
    double low = std::numeric_limits<double>::infinity(), high = -low;
    const int firstBlock = (from + kBlockSize - 1) / kBlockSize;
    const int endBlock = std::min(to / kBlockSize, summarizedBlocks());
    if (firstBlock >= endBlock) {
        for (int i = from; i < to; ++i)
            widen(data[i].value, low, high);
    } else {
        for (int i = from; i < firstBlock * kBlockSize; ++i)
            widen(data[i].value, low, high);
        for (int block = firstBlock; block < endBlock; ++block) {
            low = std::min(low, m_min[size_t(block)]);
            high = std::max(high, m_max[size_t(block)]);
        }
        for (int i = endBlock * kBlockSize; i < to; ++i)
            widen(data[i].value, low, high);
    }
    if (low > high)
        return {kNaN, kNaN};
    return {low, high};
}

void reduceToColumns(const QCPGraphData *data, int from, int to, const std::vector<double> &boundaries,
                     const BlockMinMax &blocks, QVector<QCPGraphData> *out)
{
    const auto byKey = [](const QCPGraphData &point, double key) { return point.key < key; };
    int start = from;
    for (size_t column = 0; column <= boundaries.size() && start < to; ++column) {
        const int end = column < boundaries.size()
                            ? int(std::lower_bound(data + start, data + to, boundaries[column], byKey) - data)
                            : to;
        if (end - start <= 2) {
            for (int i = start; i < end; ++i)
                out->append(data[i]);
        } else {
            const double key = data[start].key;
            const auto [low, high] = blocks.range(data, start, end);
            if (std::isnan(low)) {
                out->append(QCPGraphData(key, kNaN));
            } else if (low == high) {
                out->append(QCPGraphData(key, low));
            } else {
                // Start at the extreme nearer to where the line comes from: the shortest joining segment.
                double previous = out->isEmpty() ? data[start].value : out->constLast().value;
                if (std::isnan(previous))
                    previous = data[start].value;
                const bool highFirst = std::abs(previous - high) < std::abs(previous - low);
                out->append(QCPGraphData(key, highFirst ? high : low));
                out->append(QCPGraphData(key, highFirst ? low : high));
            }
        }
        start = end;
    }
}

void SummarizedGraph::getOptimizedLineData(QVector<QCPGraphData> *lineData,
                                           const QCPGraphDataContainer::const_iterator &begin,
                                           const QCPGraphDataContainer::const_iterator &end) const
{
    QCPAxis *keyAxis = mKeyAxis.data();
    const int count = int(end - begin);
    if (!mAdaptiveSampling || !keyAxis || count <= 0)
        return QCPGraph::getOptimizedLineData(lineData, begin, end);
    const double firstPixel = keyAxis->coordToPixel(begin->key);
    const double lastPixel = keyAxis->coordToPixel((end - 1)->key);
    // Fewer points than two per column (zoomed in): nothing to reduce.
    const double span = std::abs(lastPixel - firstPixel);
    if (!std::isfinite(span) || double(count) <= 2.0 * (span + 2.0))
        return QCPGraph::getOptimizedLineData(lineData, begin, end);
    const int columns = int(span) + 2;

    // Column boundaries on whole pixels, as keys (ascending whichever way the axis runs).
    const double direction = lastPixel >= firstPixel ? 1.0 : -1.0;
    const double startPixel = direction > 0 ? std::floor(firstPixel) : std::ceil(firstPixel);
    std::vector<double> boundaries;
    boundaries.reserve(size_t(columns));
    for (int c = 1; c < columns; ++c) {
        const double key = keyAxis->pixelToCoord(startPixel + direction * c);
        if (boundaries.empty() || key > boundaries.back())
            boundaries.push_back(key);
    }

    const QCPGraphData *all = &*mDataContainer->constBegin();
    m_blocks.update(all, mDataContainer->size());
    lineData->clear();
    lineData->reserve(2 * columns);
    reduceToColumns(all, int(begin - mDataContainer->constBegin()), int(end - mDataContainer->constBegin()), boundaries,
                    m_blocks, lineData);
}

} // namespace ty
