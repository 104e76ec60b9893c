#pragma once
// Random numbers that come out the same on every platform. std::mt19937_64's output sequence is fixed by the
// C++ standard, but std's distributions and std::shuffle are not, so the few we need are written here.
// Not thread-safe: one generator per thread.

#include <cstdint>
#include <random>
#include <vector>

namespace ty {

class PortableRandom {
public:
    // `stream` separates independent sequences drawn from one user seed (e.g. train and test data).
    explicit PortableRandom(uint64_t seed, uint64_t stream = 0);

    uint64_t next() { return m_engine(); }
    double uniform();                           // [0, 1) with 53 random bits
    double uniform(double low, double high);    // [low, high)
    uint64_t below(uint64_t n);                 // [0, n), unbiased; n > 0
    double normal();                            // standard normal (Box-Muller)

private:
    std::mt19937_64 m_engine;
    double m_spare = 0.0;
    bool m_hasSpare = false;
};

// 0 .. n-1 in the order of a Fisher-Yates shuffle seeded with (seed, stream).
std::vector<int64_t> shuffledIndices(int64_t n, uint64_t seed, uint64_t stream = 0);

} // namespace ty
