#pragma once
// The samples of one split of a run's data set, read for showing them (thumbnails of images, the values of table
// rows): the run's preset is read like `trainyard-cli evaluate` reads it and its data set loaded with core/data,
// on a worker thread, so the Evaluate view opens before the data is there. No LibTorch.

#include "dataset_arrays.h"
#include "error.h"

#include <QImage>
#include <QJsonObject>
#include <QObject>

#include <memory>

namespace ty {

struct SplitSamples {
    SampleArray samples;
    QStringList featureNames;  // tables: the columns
    QStringList characters;    // text (dataset.text): the vocabulary, so that a sample reads as its characters
    bool isImage() const;      // [1 or 3, H, W] bytes
    QImage image(qint64 index) const;   // a null image when out of range or not an image
    // "alcohol 13.2, malic_acid 1.78, ..."; a text sample as its characters in quotes, line breaks as ⏎: "“aaron⏎aa”"
    QString rowText(qint64 index, int maxValues = 6) const;
};

// Reads the split synchronously: the preset as recorded (`presetJson`, resolved against `presetFile`), its data
// set node, the split by name (test, val, train).
Result<std::shared_ptr<const SplitSamples>> readSplitSamples(const QJsonObject &presetJson, const QString &presetFile,
                                                             const QString &split);

// Loads a split on a worker thread and reports on the thread that asked. A newer request replaces an older one
// (its result is dropped). GUI thread only; the worker thread owns only its copies.
class SplitSamplesLoader : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    ~SplitSamplesLoader() override;
    void load(const QJsonObject &presetJson, const QString &presetFile, const QString &split);
    bool busy() const { return m_pending > 0; }

Q_SIGNALS:
    void loaded(std::shared_ptr<const ty::SplitSamples> samples);
    void failed(const QString &message);

private:
    int m_generation = 0;
    int m_pending = 0;
    std::shared_ptr<bool> m_alive = std::make_shared<bool>(true);
};

} // namespace ty
