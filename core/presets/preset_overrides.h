#pragma once
// `--set NODE_ID.PARAM=VALUE` and `--set training.KEY=VALUE`, typed by the parameter's own spec, and
// `--set NODE_ID.block=BLOCK_TYPE`, which swaps the node's block for another whose ports include every port the
// node's edges use (keeping the parameters both blocks have; an incompatible block is refused, naming both).

#include "error.h"
#include "preset.h"

#include <QStringList>

namespace ty {

// Applies one "path=value" override; on error the preset is unchanged and the error names the path.
Status applyOverride(Preset *preset, const QString &assignment);

// Sets the parameter that `path` ("NODE_ID.PARAM" or "training.KEY") names to `value`, checked against its
// spec; text values are read as --set reads them. Errors begin with `context` and name the node and path;
// on error the preset is unchanged.
Status applyParamValue(Preset *preset, const QString &path, const QJsonValue &value, const QString &context);

// Applies all overrides in order; stops at the first error, leaving the preset unchanged.
Status applyOverrides(Preset *preset, const QStringList &assignments);

} // namespace ty
