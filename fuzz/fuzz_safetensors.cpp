// The safetensors parser that checkpoints, weight exports and warm starts read through. A checkpoint's position
// and data order are fuzzed by fuzz_checkpoint; its RNG state and tensors against the model convert to LibTorch
// tensors and are not fuzzed; every byte of a checkpoint file reaches them only after this parser accepted it.
#include "fuzz_support.h"
#include "safetensors_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes = ty::fuzz::bytesOf(data, size);
    ty::Result<ty::TensorFile> file = ty::decodeSafetensors(bytes, QStringLiteral("fuzz.safetensors"));
    if (!file)
        return 0;
    // What was accepted must be consistent: each tensor's data is exactly its elements, and it encodes back.
    for (const ty::NamedTensor &tensor : file.value().tensors) {
        if (tensor.data.size() != tensor.elementCount() * ty::tensorDTypeSize(tensor.dtype))
            __builtin_trap();
        (void)tensor.shapeText();
    }
    const QByteArray again = ty::encodeSafetensors(file.value());
    if (!ty::decodeSafetensors(again, QStringLiteral("again.safetensors")))
        __builtin_trap();
    return 0;
}
