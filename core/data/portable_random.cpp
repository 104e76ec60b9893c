#include "portable_random.h"

#include <cmath>
#include <numeric>

namespace ty {

namespace {

uint64_t splitMix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

} // namespace

PortableRandom::PortableRandom(uint64_t seed, uint64_t stream)
    : m_engine(splitMix64(seed ^ splitMix64(stream + 0x5EEDull)))
{
}

double PortableRandom::uniform()
{
    return double(m_engine() >> 11) * (1.0 / 9007199254740992.0);  // 2^-53
}

double PortableRandom::uniform(double low, double high)
{
    return low + (high - low) * uniform();
}

uint64_t PortableRandom::below(uint64_t n)
{
    // Rejection sampling on the top of the range keeps every value equally likely.
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x = m_engine();
    while (x >= limit)
        x = m_engine();
    return x % n;
}

double PortableRandom::normal()
{
    if (m_hasSpare) {
        m_hasSpare = false;
        return m_spare;
    }
    const double u1 = 1.0 - uniform();  // (0, 1]: log is finite
    const double u2 = uniform();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 6.283185307179586 * u2;
    m_spare = radius * std::sin(angle);
    m_hasSpare = true;
    return radius * std::cos(angle);
}

std::vector<int64_t> shuffledIndices(int64_t n, uint64_t seed, uint64_t stream)
{
    std::vector<int64_t> indices(size_t(std::max<int64_t>(n, 0)));
    std::iota(indices.begin(), indices.end(), int64_t(0));
    PortableRandom random(seed, stream);
    for (int64_t i = n - 1; i > 0; --i)
        std::swap(indices[size_t(i)], indices[size_t(random.below(uint64_t(i) + 1))]);
    return indices;
}

} // namespace ty
