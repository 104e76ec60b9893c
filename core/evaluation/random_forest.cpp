#include "random_forest.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace ty::forest {

void Generator::shuffle(std::vector<size_t> &items)
{
    for (size_t i = items.size(); i > 1; --i)
        std::swap(items[i - 1], items[below(i)]);
}

namespace {

struct Split {
    int column = -1;
    double threshold = 0;
    double error = std::numeric_limits<double>::infinity();  // summed squared error of the two sides
};

// The best threshold of one column over `rows`: sorted by the column, each gap between distinct values tried,
// sums kept running so the scan is linear.
void tryColumn(const Matrix &x, const std::vector<double> &y, std::vector<size_t> rows, int column, int minLeaf, Split *best)
{
    std::sort(rows.begin(), rows.end(), [&](size_t a, size_t b) { return x[a][size_t(column)] < x[b][size_t(column)]; });
    double totalSum = 0, totalSquares = 0;
    for (size_t r : rows) {
        totalSum += y[r];
        totalSquares += y[r] * y[r];
    }
    double leftSum = 0, leftSquares = 0;
    const size_t n = rows.size();
    for (size_t i = 0; i + 1 < n; ++i) {
        leftSum += y[rows[i]];
        leftSquares += y[rows[i]] * y[rows[i]];
        const double here = x[rows[i]][size_t(column)], next = x[rows[i + 1]][size_t(column)];
        if (here == next || i + 1 < size_t(minLeaf) || n - i - 1 < size_t(minLeaf))
            continue;
        const double nl = double(i + 1), nr = double(n - i - 1);
        const double rightSum = totalSum - leftSum, rightSquares = totalSquares - leftSquares;
        const double error = (leftSquares - leftSum * leftSum / nl) + (rightSquares - rightSum * rightSum / nr);
        if (error < best->error) {
            best->column = column;
            best->threshold = (here + next) / 2;
            best->error = error;
        }
    }
}

} // namespace

void RegressionTree::grow(const Matrix &x, const std::vector<double> &y, const std::vector<size_t> &rows,
                          const ForestSettings &settings, Generator &rng)
{
    m_nodes.clear();
    growNode(x, y, rows, 0, settings, rng);
}

int RegressionTree::growNode(const Matrix &x, const std::vector<double> &y, std::vector<size_t> rows, int depth,
                             const ForestSettings &settings, Generator &rng)
{
    const int index = int(m_nodes.size());
    m_nodes.emplace_back();
    double sum = 0;
    for (size_t r : rows)
        sum += y[r];
    m_nodes[size_t(index)].value = rows.empty() ? 0 : sum / double(rows.size());
    const size_t columns = x.empty() ? 0 : x.front().size();
    if (depth >= settings.depth || rows.size() < 2 * size_t(settings.minLeaf) || columns == 0)
        return index;
    std::vector<size_t> order(columns);
    std::iota(order.begin(), order.end(), size_t(0));
    rng.shuffle(order);
    const size_t tried = std::clamp(size_t(settings.columnsPerSplit), size_t(1), columns);
    Split best;
    for (size_t c = 0; c < tried; ++c)
        tryColumn(x, y, rows, int(order[c]), settings.minLeaf, &best);
    if (best.column < 0)
        return index;
    std::vector<size_t> left, right;
    for (size_t r : rows)
        (x[r][size_t(best.column)] <= best.threshold ? left : right).push_back(r);
    rows = {};
    const int leftChild = growNode(x, y, std::move(left), depth + 1, settings, rng);
    const int rightChild = growNode(x, y, std::move(right), depth + 1, settings, rng);
    Node &node = m_nodes[size_t(index)];
    node.column = best.column;
    node.threshold = best.threshold;
    node.left = leftChild;
    node.right = rightChild;
    return index;
}

double RegressionTree::predict(const std::vector<double> &features) const
{
    int at = 0;
    while (!m_nodes.empty() && m_nodes[size_t(at)].column >= 0) {
        const Node &node = m_nodes[size_t(at)];
        at = features[size_t(node.column)] <= node.threshold ? node.left : node.right;
    }
    return m_nodes.empty() ? 0 : m_nodes[size_t(at)].value;
}

std::vector<ForestTree> growForest(const Matrix &x, const std::vector<double> &y, const ForestSettings &settings, Generator &rng)
{
    std::vector<ForestTree> forest(size_t(std::max(0, settings.trees)));
    const size_t n = y.size();
    for (ForestTree &member : forest) {
        std::vector<size_t> sample(n);
        std::vector<bool> drawn(n, false);
        for (size_t &row : sample) {
            row = rng.below(n);
            drawn[row] = true;
        }
        for (size_t r = 0; r < n; ++r)
            if (!drawn[r])
                member.outOfBag.push_back(r);
        member.tree.grow(x, y, sample, settings, rng);
    }
    return forest;
}

} // namespace ty::forest
