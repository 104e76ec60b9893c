#include "shape_inference.h"

#include "preset_inspection.h"

#include <torch/torch.h>

namespace ty {

ShapeReport inspectPreset(const Preset &preset)
{
    ShapeReport report = inspectPresetShapes(preset);
    if (presetWantsCuda(preset) && !cudaAvailable())
        report.issues.append(cudaUnavailableIssue());
    return report;
}

QString torchVersion()
{
    return QStringLiteral("%1.%2.%3").arg(TORCH_VERSION_MAJOR).arg(TORCH_VERSION_MINOR).arg(TORCH_VERSION_PATCH);
}

bool cudaAvailable()
{
    return torch::cuda::is_available();
}

} // namespace ty
