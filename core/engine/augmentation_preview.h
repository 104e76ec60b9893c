#pragma once
// What the augmentation (transform) blocks do to a sample, through the very code training runs (issue 42): the
// preset is compiled as for training (compilePipeline), one training sample becomes a batch of `count` copies the
// way a training batch is drawn (DeviceSplit::rows: bytes made floats and scaled), and the graph's forward runs
// in training mode up to the chosen transform node, so each copy gets its own random draw from LibTorch's generator,
// seeded with `seed` after compiling. The same seed gives the same variants; another seed others. What the inspector
// shows on a transform node (via `trainyard-cli augment`, and its long-lived `--serve` worker through an
// AugmentationPreviewer). No LibTorch types here; never throws.

#include "dataset_arrays.h"
#include "error.h"
#include "preset.h"

#include <memory>
#include <vector>

namespace ty {

struct AugmentationPreviewOptions {
    QString nodeId;        // a transform node of the preset
    int64_t sample = 0;    // the training split's sample
    quint64 seed = 0;
    int count = 16;        // variants, 1 to 256
};

struct AugmentationPreview {
    std::vector<int64_t> sampleShape;             // of `original`, e.g. {1, 28, 28}
    std::vector<float> original;                  // the sample as the graph receives it
    std::vector<int64_t> variantShape;            // the node's output per sample
    std::vector<std::vector<float>> variants;     // `count` of them
    QStringList transforms;                       // the transform nodes the sample went through, in order, the node last
};

// On a data set already loaded for `preset` (loadDataset of its dataset node). Errors name the node: not in the
// preset, not a transform, a sample out of range, a preset that does not compile, a streamed data set.
Result<AugmentationPreview> previewAugmentation(const Preset &preset, const LoadedDataset &data, const AugmentationPreviewOptions &options);
// Loads the preset's data set first (as a run would), then as above.
Result<AugmentationPreview> previewAugmentation(const Preset &preset, const AugmentationPreviewOptions &options);

// Previews one after another, keeping what they share: the data set, loaded again only when the data set node's
// request (block, parameters, folder) changes, and the compiled pipeline, compiled again only when the preset or the
// data set changes. Another seed, sample or node reuses both, and draws exactly what previewAugmentation would.
// Not thread-safe: one caller at a time.
class AugmentationPreviewer {
public:
    AugmentationPreviewer();
    ~AugmentationPreviewer();
    AugmentationPreviewer(const AugmentationPreviewer &) = delete;
    AugmentationPreviewer &operator=(const AugmentationPreviewer &) = delete;

    Result<AugmentationPreview> preview(const Preset &preset, const AugmentationPreviewOptions &options);
    // How often the data set was loaded and the pipeline compiled so far.
    int datasetLoads() const { return m_datasetLoads; }
    int compilations() const { return m_compilations; }

private:
    struct Cache;
    std::unique_ptr<Cache> m_cache;
    int m_datasetLoads = 0;
    int m_compilations = 0;
};

} // namespace ty
