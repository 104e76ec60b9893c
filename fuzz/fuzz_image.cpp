// The images `predict` reads (PNG, JPEG, BMP, decoded by QImage with its allocation limit), converted to a
// model's channels and size. The first input byte picks the file name's suffix and the model's input.
#include "fuzz_support.h"
#include "model_inputs.h"

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    ty::fuzz::ensureApplication();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    static const char *const suffixes[] = {"png", "jpg", "bmp", "jpeg"};
    const uint8_t options = data[0];
    const QString path = ty::fuzz::writeScratchFile(QStringLiteral("image.%1").arg(QLatin1String(suffixes[options & 3])),
                                                    data + 1, size - 1);
    ty::SampleFormat format;
    format.sampleShape = (options & 4) ? std::vector<int64_t>{3, 32, 32} : std::vector<int64_t>{1, 28, 28};
    format.scale = 1.0f / 255.0f;
    (void)ty::readModelInputs({path}, format, 4);
    return 0;
}
