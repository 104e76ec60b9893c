#include "split_samples.h"

#include "block_registry.h"
#include "dataset_loader.h"
#include "dataset_summary.h"
#include "preset_format.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>

#include <thread>

namespace ty {

bool SplitSamples::isImage() const
{
    const auto &shape = samples.sampleShape;
    return !samples.isFloat && shape.size() == 3 && (shape[0] == 1 || shape[0] == 3);
}

QImage SplitSamples::image(qint64 index) const
{
    return isImage() ? sampleImage(samples, index) : QImage();
}

QString SplitSamples::rowText(qint64 index, int maxValues) const
{
    if (index < 0 || index >= samples.count)
        return {};
    const int64_t width = samples.sampleSize();
    if (!characters.isEmpty())
        return sampleCharacters(samples, index, characters);
    QStringList parts;
    for (int64_t j = 0; j < width && j < maxValues; ++j) {
        const double value = samples.isFloat ? samples.floats[size_t(index * width + j)]
                                             : samples.bytes[size_t(index * width + j)] * double(samples.scale);
        const QString name = j < featureNames.size() ? featureNames[int(j)] : QStringLiteral("x%1").arg(j);
        parts << QStringLiteral("%1 %2").arg(name).arg(value, 0, 'g', 4);
    }
    if (width > maxValues)
        parts << QStringLiteral("…");
    return parts.join(QStringLiteral(", "));
}

Result<std::shared_ptr<const SplitSamples>> readSplitSamples(const QJsonObject &presetJson, const QString &presetFile,
                                                             const QString &split)
{
    Result<Preset> preset = presetFromJson(presetJson, presetFile);
    if (!preset)
        return preset.error();
    const BlockRegistry &registry = BlockRegistry::builtin();
    for (const Node &node : preset.value().graph.nodes) {
        const BlockDescriptor *block = registry.find(node.block);
        if (!block || block->category != BlockCategory::Dataset)
            continue;
        Result<LoadedDataset> loaded = loadDataset(DatasetRequest{node.block, node.id, block->effectiveParams(node.params), preset.value().baseDir()});
        if (!loaded)
            return loaded.error();
        auto out = std::make_shared<SplitSamples>();
        LoadedDataset &data = loaded.value();
        out->samples = std::move(split == QStringLiteral("val") ? data.val.x : split == QStringLiteral("train") ? data.train.x : data.test.x);
        out->featureNames = data.featureNames;
        if (block->yieldsTextWindows)
            out->characters = data.classNames;
        return std::shared_ptr<const SplitSamples>(std::move(out));
    }
    return Error(QStringLiteral("the run's preset has no dataset node"));
}

SplitSamplesLoader::~SplitSamplesLoader()
{
    *m_alive = false;  // a worker still running drops its result (it holds the flag, not this object)
}

void SplitSamplesLoader::load(const QJsonObject &presetJson, const QString &presetFile, const QString &split)
{
    const int generation = ++m_generation;
    ++m_pending;
    QPointer<SplitSamplesLoader> self(this);
    std::shared_ptr<bool> alive = m_alive;
    std::thread([self, alive, generation, presetJson, presetFile, split] {
        Result<std::shared_ptr<const SplitSamples>> read = readSplitSamples(presetJson, presetFile, split);
        // Delivered through the application object on the GUI thread, where the loader lives and dies: the
        // flag and `self` are only looked at there.
        QMetaObject::invokeMethod(QCoreApplication::instance(), [self, alive, generation, read] {
            if (!*alive || !self)
                return;
            --self->m_pending;
            if (generation != self->m_generation)
                return;
            if (read)
                Q_EMIT self->loaded(read.value());
            else
                Q_EMIT self->failed(read.error().toString());
        }, Qt::QueuedConnection);
    }).detach();
}

} // namespace ty
