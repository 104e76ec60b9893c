#pragma once
// A QCPGraph for series of millions of points. Every point stays in the graph's data container (hover,
// export and zooming in see them all); only drawing is reduced, as QCustomPlot's adaptive sampling does, to
// the minimum and maximum of each pixel column. These come from summaries of blocks of points kept beside the
// data, so a replot reads about (pixel columns x block size) values instead of every point in view.
//
// The summaries follow appends lazily (extended at the next draw). Points inserted or removed before the end,
// or the data replaced, move the first or the last point summarised: that is noticed and rebuilds them. Values
// changed in place are not noticed (MetricPlot never does that; it builds new graphs instead).
//
// Thread affinity: the GUI thread, like its QCustomPlot.

#include "qcustomplot_include.h"

#include <utility>
#include <vector>

namespace ty {

// The minimum and maximum of the finite values of each complete block of kBlockSize consecutive points.
class BlockMinMax {
public:
    static constexpr int kBlockSize = 64;

    // Brings the summaries up to date with data[0..size): extends them after appends, rebuilds them when the
    // points they were built from changed.
    void update(const QCPGraphData *data, int size);
    // Minimum and maximum of the finite values of data[from..to); NaN and NaN when there are none. Blocks
    // summarised by the last update() are read from their summary, the rest point by point.
    std::pair<double, double> range(const QCPGraphData *data, int from, int to) const;
    int summarizedBlocks() const { return int(m_min.size()); }

private:
    std::vector<double> m_min, m_max;
    int m_size = 0;  // points seen by the last update(), and two of them to notice changes
    QCPGraphData m_first, m_last;
};

// Appends to `out` the points data[from..to) (sorted by key) reduced to at most two per column: column c holds
// the points with boundaries[c-1] <= key < boundaries[c] (ascending; the first and last columns are open). A
// column of one or two points is copied as it is; a larger one gives its minimum and maximum at its first key
// (one point when they are equal), the one nearer to the previous point first, or one NaN point (a gap) when
// none of its values is finite.
void reduceToColumns(const QCPGraphData *data, int from, int to, const std::vector<double> &boundaries,
                     const BlockMinMax &blocks, QVector<QCPGraphData> *out);

class SummarizedGraph : public QCPGraph {
public:
    SummarizedGraph(QCPAxis *keyAxis, QCPAxis *valueAxis) : QCPGraph(keyAxis, valueAxis) {}

protected:
    void getOptimizedLineData(QVector<QCPGraphData> *lineData, const QCPGraphDataContainer::const_iterator &begin,
                              const QCPGraphDataContainer::const_iterator &end) const override;

private:
    mutable BlockMinMax m_blocks;
};

} // namespace ty
