// The IDX reader, plain and gzipped (a file starting with 1f 8b is inflated as it is read), through a file as
// the data sets and `predict` read it, then the conversions to samples and labels.
#include "fuzz_support.h"
#include "idx_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString path = ty::fuzz::writeScratchFile(QStringLiteral("data.idx"), data, size);
    ty::Result<ty::IdxHeader> header = ty::readIdxHeader(path);
    ty::Result<ty::IdxArray> array = ty::readIdxFile(path);
    if (!array)
        return 0;
    if (!header)
        __builtin_trap();  // the whole file was accepted, so its header must be
    (void)ty::idxToLabels(array.value(), path);
    (void)ty::idxSampleShape(array.value().header.dims);
    (void)ty::idxToSamples(std::move(array.value()), true);
    return 0;
}
