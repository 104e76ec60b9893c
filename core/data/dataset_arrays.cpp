#include "dataset_arrays.h"

namespace ty {

int64_t SampleArray::sampleSize() const
{
    int64_t size = 1;
    for (const int64_t dim : sampleShape)
        size *= dim;
    return size;
}

} // namespace ty
