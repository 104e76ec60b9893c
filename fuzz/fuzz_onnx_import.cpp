// The ONNX import (trainyard-cli import): the protobuf reader with its bounds, the patterns, every op's import
// rule, the grouping into composites and the planning of the preset, on any bytes. An accepted model must give a
// preset that loads again and weights that encode and decode.
#include "fuzz_support.h"
#include "onnx_import.h"
#include "preset_format.h"

#include <QJsonObject>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ty::fuzz::ensureApplication();
    const ty::Result<ty::OnnxModelView> model = ty::readOnnxModel(ty::fuzz::bytesOf(data, size), QStringLiteral("fuzz.onnx"));
    if (!model)
        return 0;
    const ty::Result<ty::OnnxImport> imported = ty::importOnnx(model.value(), QStringLiteral("fuzz.onnx"), QStringLiteral("fuzz"),
                                                               QStringLiteral("fuzz.weights.safetensors"));
    if (!imported)
        return 0;
    if (!ty::presetFromJson(imported.value().preset, QStringLiteral("fuzz.trainyard.json")))
        __builtin_trap();
    if (!ty::decodeSafetensors(ty::encodeSafetensors(imported.value().weights), QStringLiteral("fuzz.weights.safetensors")))
        __builtin_trap();
    return 0;
}
