#pragma once
// A small regression forest for parameter_importance.h: depth-limited trees grown on bootstrap samples, a
// random subset of the columns tried at each split, splits chosen by the least summed squared error. Rows are
// trials, columns encoded features (numbers). Each tree keeps which rows it left out of its bootstrap (its
// out-of-bag rows). Deterministic for a seed: our own generator (std::mt19937_64, which the standard fixes), no
// library distribution. Plain values; thread-safe.

#include <QtGlobal>

#include <cstdint>
#include <random>
#include <vector>

namespace ty::forest {

using Matrix = std::vector<std::vector<double>>;  // [row][column]

struct ForestSettings {
    int trees = 100;
    int depth = 6;
    int minLeaf = 2;
    int columnsPerSplit = 1;  // tried at each split, at most the number of columns
};

// Draws from a std::mt19937_64 without the standard library's distributions (whose output varies by library).
class Generator {
public:
    explicit Generator(quint64 seed) : m_engine(seed) {}
    size_t below(size_t n) { return size_t(m_engine() % n); }  // n > 0; the bias is below 2^-40 for our sizes
    void shuffle(std::vector<size_t> &items);

private:
    std::mt19937_64 m_engine;
};

class RegressionTree {
public:
    // Grows the tree on `rows` of x (repeats allowed: a bootstrap sample).
    void grow(const Matrix &x, const std::vector<double> &y, const std::vector<size_t> &rows, const ForestSettings &settings,
              Generator &rng);
    double predict(const std::vector<double> &features) const;

private:
    struct Node {
        int column = -1;        // -1: a leaf
        double threshold = 0;   // features[column] <= threshold goes left
        int left = -1, right = -1;
        double value = 0;       // the mean of the leaf's rows
    };
    int growNode(const Matrix &x, const std::vector<double> &y, std::vector<size_t> rows, int depth,
                 const ForestSettings &settings, Generator &rng);
    std::vector<Node> m_nodes;
};

struct ForestTree {
    RegressionTree tree;
    std::vector<size_t> outOfBag;  // rows not drawn into its bootstrap sample
};

std::vector<ForestTree> growForest(const Matrix &x, const std::vector<double> &y, const ForestSettings &settings,
                                   Generator &rng);

} // namespace ty::forest
