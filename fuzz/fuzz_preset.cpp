// The preset loader: JSON with line and column errors, the format's migrations and stages, then
// what `validate` does with a loaded preset (validation, shape inference, memory estimate) and the preset's
// flattening, hashing and saving. Data files a fuzzed preset names are only read if they exist.
#include "fuzz_support.h"
#include "json_io.h"
#include "preset_format.h"
#include "preset_inspection.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString file = QStringLiteral("/dev/shm/trainyard-fuzz-preset/fuzz.trainyard.json");
    ty::Result<QJsonObject> json = ty::parseJsonObject(ty::fuzz::bytesOf(data, size), file);
    if (!json)
        return 0;
    ty::Result<ty::Preset> preset = ty::presetFromJson(json.value(), file);
    if (!preset)
        return 0;
    (void)ty::inspectPresetShapes(preset.value());
    (void)ty::flattenParams(preset.value());
    (void)ty::presetHash(preset.value());
    // What the loader accepted saves and loads back as the same preset.
    ty::Result<ty::Preset> again = ty::presetFromJson(ty::presetToJson(preset.value()), file);
    if (!again)
        __builtin_trap();
    return 0;
}
