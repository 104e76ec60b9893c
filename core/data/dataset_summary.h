#pragma once
// What the app shows of a loaded data set without training anything: the samples of each class in each split,
// the mean and standard deviation of the training samples per channel (what transform.normalize takes), and a
// sample as an image. No LibTorch; QImage needs no display.

#include "dataset_arrays.h"

#include <QImage>

#include <cstdint>
#include <vector>

namespace ty {

// The samples of each class, counted; `numClasses` entries (labels outside are not counted).
std::vector<int64_t> classCounts(const TargetArray &targets, int64_t numClasses);

// Per channel (the first dimension of a sample: an image's channels, a table's features; one channel for a
// sample without dimensions), over every sample: the mean and the population standard deviation of the values as
// the model sees them (bytes times their scale).
struct ChannelStatistics {
    std::vector<double> mean, stddev;
};
ChannelStatistics channelStatistics(const SampleArray &samples);

// Sample `index` as an image when the samples are [1 or 3, H, W] bytes; a null image otherwise.
QImage sampleImage(const SampleArray &samples, int64_t index);

// Sample `index` of a text data set (dataset.text: character ids under `vocabulary`, its class names) as its
// characters in quotes, a line break as ⏎ and a tab as ⇥: "“aaron⏎aa”".
QString sampleCharacters(const SampleArray &samples, int64_t index, const QStringList &vocabulary);

} // namespace ty
