#include "parameter_importance.h"

#include "random_forest.h"

#include <QCoreApplication>
#include <QMap>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ty {

namespace {

// Columns shuffled together: the encoded columns of one parameter.
using ColumnGroup = std::vector<size_t>;

// The encoded matrix [trial][column] and, for each parameter, the columns it became.
struct Encoded {
    forest::Matrix x;
    std::vector<ColumnGroup> groups;
};

Encoded encode(const QList<ParameterColumn> &columns, size_t trials)
{
    Encoded encoded;
    encoded.x.assign(trials, {});
    for (const ParameterColumn &column : columns) {
        ColumnGroup group;
        if (column.scale == ParameterScale::Categories) {
            QStringList distinct = column.categories;
            distinct.removeDuplicates();
            std::sort(distinct.begin(), distinct.end());
            for (const QString &category : distinct) {
                group.push_back(encoded.x.front().size());
                for (size_t t = 0; t < trials; ++t)
                    encoded.x[t].push_back(column.categories.at(qsizetype(t)) == category ? 1.0 : 0.0);
            }
        } else {
            group.push_back(encoded.x.front().size());
            for (size_t t = 0; t < trials; ++t)
                encoded.x[t].push_back(column.scale == ParameterScale::Log ? std::log10(column.numbers[t]) : column.numbers[t]);
        }
        encoded.groups.push_back(group);
    }
    return encoded;
}

double variance(const std::vector<double> &values)
{
    const double mean = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
    double sum = 0;
    for (double v : values)
        sum += (v - mean) * (v - mean);
    return sum / double(values.size());
}

// One forest's importance of every group: the mean over its trees of the growth of the out-of-bag squared
// error when the group's values are shuffled between trials, over the metric's variance.
std::vector<double> forestImportance(const Encoded &encoded, const std::vector<double> &y, double yVariance,
                                     const forest::ForestSettings &settings, forest::Generator &rng)
{
    const std::vector<forest::ForestTree> trees = forest::growForest(encoded.x, y, settings, rng);
    std::vector<double> total(encoded.groups.size(), 0.0);
    int counted = 0;
    std::vector<size_t> permutation(y.size());
    for (const forest::ForestTree &member : trees) {
        if (member.outOfBag.empty())
            continue;
        ++counted;
        double baseError = 0;
        for (size_t row : member.outOfBag) {
            const double d = member.tree.predict(encoded.x[row]) - y[row];
            baseError += d * d;
        }
        for (size_t g = 0; g < encoded.groups.size(); ++g) {
            std::iota(permutation.begin(), permutation.end(), size_t(0));
            rng.shuffle(permutation);
            double error = 0;
            for (size_t row : member.outOfBag) {
                std::vector<double> features = encoded.x[row];
                for (size_t column : encoded.groups[g])
                    features[column] = encoded.x[permutation[row]][column];
                const double d = member.tree.predict(features) - y[row];
                error += d * d;
            }
            total[g] += (error - baseError) / double(member.outOfBag.size()) / yVariance;
        }
    }
    for (double &value : total)
        value = counted > 0 ? value / counted : 0.0;
    return total;
}

std::vector<double> ranks(const std::vector<double> &values)
{
    std::vector<size_t> order(values.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
    std::vector<double> rank(values.size());
    for (size_t i = 0; i < order.size();) {
        size_t j = i;
        while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]])
            ++j;
        const double mean = (double(i) + double(j)) / 2 + 1;
        for (size_t k = i; k <= j; ++k)
            rank[order[k]] = mean;
        i = j + 1;
    }
    return rank;
}

QString tr(const char *text) { return QCoreApplication::translate("ParameterImportance", text); }

} // namespace

QString parameterScaleName(ParameterScale scale)
{
    switch (scale) {
    case ParameterScale::Linear: return QStringLiteral("linear");
    case ParameterScale::Log: return QStringLiteral("log");
    case ParameterScale::Categories: return QStringLiteral("categories");
    }
    return QString();
}

std::optional<double> spearmanCorrelation(const std::vector<double> &a, const std::vector<double> &b)
{
    if (a.size() != b.size() || a.size() < 2)
        return std::nullopt;
    const std::vector<double> ra = ranks(a), rb = ranks(b);
    const double mean = (double(a.size()) + 1) / 2;  // the mean rank, ties or not
    double cov = 0, va = 0, vb = 0;
    for (size_t i = 0; i < ra.size(); ++i) {
        cov += (ra[i] - mean) * (rb[i] - mean);
        va += (ra[i] - mean) * (ra[i] - mean);
        vb += (rb[i] - mean) * (rb[i] - mean);
    }
    if (va == 0 || vb == 0)
        return std::nullopt;
    return cov / std::sqrt(va * vb);
}

Result<QList<ParameterImportance>> parameterImportance(const QList<ParameterColumn> &columns, const std::vector<double> &metric,
                                                       const ImportanceSettings &settings)
{
    const size_t trials = metric.size();
    if (trials < size_t(kMinImportanceTrials))
        return Error(tr("importance needs at least %1 finished trials; this sweep has %2").arg(kMinImportanceTrials).arg(trials));
    if (columns.isEmpty())
        return Error(tr("importance needs at least one searched parameter"));
    for (double value : metric)
        if (!std::isfinite(value))
            return Error(tr("importance needs a finite metric value in every trial"));
    for (const ParameterColumn &column : columns) {
        const size_t size = column.scale == ParameterScale::Categories ? size_t(column.categories.size()) : column.numbers.size();
        if (size != trials)
            return Error(tr("parameter %1 has %2 values for %3 trials").arg(column.name).arg(size).arg(trials));
        if (column.scale != ParameterScale::Categories)
            for (double value : column.numbers)
                if (!std::isfinite(value) || (column.scale == ParameterScale::Log && value <= 0))
                    return Error(tr("parameter %1 has a value %2 that its %3 scale cannot take")
                                     .arg(column.name).arg(value).arg(parameterScaleName(column.scale)));
    }

    const Encoded encoded = encode(columns, trials);
    const double yVariance = variance(metric);
    const int repeats = std::max(1, settings.repeats);
    std::vector<std::vector<double>> byRepeat;
    if (yVariance > 0) {
        forest::ForestSettings forestSettings;
        forestSettings.trees = settings.trees;
        forestSettings.depth = settings.depth;
        forestSettings.minLeaf = settings.minLeaf;
        const size_t width = encoded.x.front().size();
        forestSettings.columnsPerSplit = int(std::max<size_t>(1, (2 * width + 2) / 3));  // two thirds, rounded up
        for (int r = 0; r < repeats; ++r) {
            forest::Generator rng(settings.seed + quint64(r) * 0x9E3779B97F4A7C15ULL);
            byRepeat.push_back(forestImportance(encoded, metric, yVariance, forestSettings, rng));
        }
    }

    QList<ParameterImportance> result;
    for (qsizetype p = 0; p < columns.size(); ++p) {
        const ParameterColumn &column = columns.at(p);
        ParameterImportance entry;
        entry.name = column.name;
        entry.scale = column.scale;
        double sum = 0, squares = 0;
        for (const std::vector<double> &repeat : byRepeat) {
            sum += repeat[size_t(p)];
            squares += repeat[size_t(p)] * repeat[size_t(p)];
        }
        if (!byRepeat.empty()) {
            const double n = double(byRepeat.size());
            entry.importance = sum / n;
            entry.spread = n > 1 ? std::sqrt(std::max(0.0, (squares - sum * sum / n) / (n - 1))) : 0.0;
        }
        if (column.scale != ParameterScale::Categories)
            entry.spearman = spearmanCorrelation(column.numbers, metric);
        result.append(entry);
    }
    std::stable_sort(result.begin(), result.end(),
                     [](const ParameterImportance &a, const ParameterImportance &b) { return a.importance > b.importance; });
    return result;
}

} // namespace ty
