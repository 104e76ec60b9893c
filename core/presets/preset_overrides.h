#pragma once
// `--set NODE_ID.PARAM=VALUE` and `--set training.KEY=VALUE`, typed by the parameter's own spec.

#include "error.h"
#include "preset.h"

#include <QStringList>

namespace ty {

// Applies one "path=value" override; on error the preset is unchanged and the error names the path.
Status applyOverride(Preset *preset, const QString &assignment);

// Applies all overrides in order; stops at the first error, leaving the preset unchanged.
Status applyOverrides(Preset *preset, const QStringList &assignments);

} // namespace ty
