// `--set` overrides: each input line is one `path=value` applied to a bundled preset, as `run --set` does,
// then the overridden preset is validated and shaped like `validate` does.
#include "fuzz_support.h"
#include "preset_format.h"
#include "preset_inspection.h"
#include "preset_overrides.h"

#include <QStringList>
#include <cstdlib>

namespace {
const ty::Preset &basePreset()
{
    static const ty::Preset preset = [] {
        ty::Result<ty::Preset> loaded = ty::loadPreset(QStringLiteral(TRAINYARD_SOURCE_DIR "/tests/reliability/kill-test.trainyard.json"));
        if (!loaded)
            std::abort();
        return loaded.value();
    }();
    return preset;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QStringList assignments = QString::fromUtf8(ty::fuzz::bytesOf(data, size)).split(QLatin1Char('\n'));
    ty::Preset preset = basePreset();
    const ty::Status applied = ty::applyOverrides(&preset, assignments);
    if (!applied && !(preset == basePreset()))
        __builtin_trap();  // a refused override changes nothing
    (void)ty::inspectPresetShapes(preset);
    return 0;
}
