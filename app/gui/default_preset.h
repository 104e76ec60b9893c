#pragma once
// Where the bundled presets are: installed beside the executable (../share/trainyard/presets), else in the
// source tree the executable was built from (TRAINYARD_SOURCE_PRESETS_DIR).

#include <QString>

namespace ty {

QString bundledPresetsDir();  // empty when neither exists
QString defaultPresetPath();  // the Fashion-MNIST MLP, or empty when it cannot be found

} // namespace ty
