#include "dataset_summary.h"

#include "text_dataset.h"

#include <algorithm>
#include <cmath>

namespace ty {

std::vector<int64_t> classCounts(const TargetArray &targets, int64_t numClasses)
{
    std::vector<int64_t> counts(size_t(std::max<int64_t>(0, numClasses)), 0);
    if (!targets.classification)
        return counts;
    for (const int64_t label : targets.classes)
        if (label >= 0 && label < numClasses)
            ++counts[size_t(label)];
    return counts;
}

ChannelStatistics channelStatistics(const SampleArray &samples)
{
    const int64_t channels = samples.sampleShape.empty() ? 1 : std::max<int64_t>(1, samples.sampleShape[0]);
    const int64_t size = samples.sampleSize(), perChannel = size / channels;
    std::vector<double> sum(size_t(channels), 0.0), squares(size_t(channels), 0.0);
    for (int64_t i = 0; i < samples.count; ++i)
        for (int64_t c = 0; c < channels; ++c) {
            double s = 0, q = 0;  // one channel of one sample first: fewer rounding steps in the totals
            const int64_t base = i * size + c * perChannel;
            for (int64_t j = 0; j < perChannel; ++j) {
                const double v = samples.isFloat ? double(samples.floats[size_t(base + j)])
                                                 : double(samples.bytes[size_t(base + j)]) * double(samples.scale);
                s += v;
                q += v * v;
            }
            sum[size_t(c)] += s;
            squares[size_t(c)] += q;
        }
    ChannelStatistics out;
    const double n = double(samples.count) * double(perChannel);
    for (int64_t c = 0; c < channels; ++c) {
        const double mean = n > 0 ? sum[size_t(c)] / n : 0.0;
        out.mean.push_back(mean);
        out.stddev.push_back(n > 0 ? std::sqrt(std::max(0.0, squares[size_t(c)] / n - mean * mean)) : 0.0);
    }
    return out;
}

QImage sampleImage(const SampleArray &samples, int64_t index)
{
    const auto &shape = samples.sampleShape;
    if (samples.isFloat || shape.size() != 3 || (shape[0] != 1 && shape[0] != 3) || index < 0 || index >= samples.count)
        return {};
    const int channels = int(shape[0]), height = int(shape[1]), width = int(shape[2]);
    const uint8_t *data = samples.bytes.data() + index * samples.sampleSize();
    QImage image(width, height, channels == 1 ? QImage::Format_Grayscale8 : QImage::Format_RGB888);
    for (int y = 0; y < height; ++y) {
        uchar *line = image.scanLine(y);
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < channels; ++c)
                line[x * channels + c] = data[(c * height + y) * width + x];
    }
    return image;
}

QString sampleCharacters(const SampleArray &samples, int64_t index, const QStringList &vocabulary)
{
    if (index < 0 || index >= samples.count)
        return {};
    const int64_t width = samples.sampleSize();
    QString text;
    for (int64_t j = 0; j < width; ++j) {
        const size_t at = size_t(index * width + j);
        const char32_t c = characterOfClassName(vocabulary.value(int(samples.isFloat ? samples.floats[at] : samples.bytes[at])));
        text += c == U'\n' ? QStringLiteral("⏎") : c == U'\t' ? QStringLiteral("⇥") : c ? QString::fromUcs4(&c, 1) : QStringLiteral("?");
    }
    return QStringLiteral("“%1”").arg(text);
}

} // namespace ty
