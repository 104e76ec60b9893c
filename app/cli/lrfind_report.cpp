#include "lrfind_report.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace ty::cli {

namespace {

bool positiveNumber(const QString &text, double *value)
{
    bool ok = false;
    *value = text.trimmed().toDouble(&ok);
    return ok && std::isfinite(*value) && *value > 0;
}

QJsonValue numberOrNull(double value)
{
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue();
}

QJsonValue suggestionJson(const std::optional<RateSuggestion> &s)
{
    return s ? QJsonValue(QJsonObject{{QStringLiteral("lr"), s->lr}, {QStringLiteral("step"), s->index + 1}}) : QJsonValue();
}

QString rateText(double lr)
{
    return QString::number(lr, 'e', 2);
}

} // namespace

LrFindOptions lrFindOptionsFrom(const Args &args, QString *error)
{
    LrFindOptions options;
    error->clear();
    for (const char *name : {"min", "max"}) {
        const QString key = QString::fromLatin1(name);
        if (!args.options.contains(key))
            continue;
        double value = 0;
        if (!positiveNumber(args.option(key), &value)) {
            *error = QStringLiteral("--%1: expected a positive learning rate, got '%2'").arg(key, args.option(key).left(60));
            return options;
        }
        (key == QLatin1String("min") ? options.minLr : options.maxLr) = value;
    }
    if (options.minLr >= options.maxLr) {
        *error = QStringLiteral("--min %1 must be below --max %2").arg(options.minLr).arg(options.maxLr);
        return options;
    }
    if (args.options.contains(QStringLiteral("steps"))) {
        bool ok = false;
        const int steps = args.option(QStringLiteral("steps")).trimmed().toInt(&ok);
        if (!ok || steps < 5 || steps > 100000) {
            *error = QStringLiteral("--steps: expected a whole number from 5 to 100000, got '%1'").arg(args.option(QStringLiteral("steps")).left(60));
            return options;
        }
        options.steps = steps;
    }
    return options;
}

QJsonObject lrFindResultJson(const LrFindOptions &options, const LrFindResult &result, double presetLr)
{
    const std::vector<RangeTestPoint> &points = result.curve.points();
    return QJsonObject{
        {QStringLiteral("min_lr"), options.minLr},
        {QStringLiteral("max_lr"), options.maxLr},
        {QStringLiteral("steps"), options.steps},
        {QStringLiteral("steps_run"), int(points.size())},
        {QStringLiteral("beta"), options.beta},
        {QStringLiteral("diverge_factor"), options.divergeFactor},
        {QStringLiteral("batch_size"), qint64(result.batchSize)},
        {QStringLiteral("optimizer"), QJsonObject{{QStringLiteral("node"), result.optimizerNode},
                                                  {QStringLiteral("type"), result.optimizerType},
                                                  {QStringLiteral("lr"), presetLr}}},
        {QStringLiteral("schedule_ignored"), result.scheduleNode.isEmpty() ? QJsonValue() : QJsonValue(result.scheduleNode)},
        {QStringLiteral("stopped_early"), result.curve.stopped()},
        {QStringLiteral("stop_reason"), result.curve.stopped() ? QJsonValue(result.curve.stopReason()) : QJsonValue()},
        {QStringLiteral("last_lr"), points.empty() ? QJsonValue() : QJsonValue(points.back().lr)},
        {QStringLiteral("suggestions"), QJsonObject{{QStringLiteral("steepest"), suggestionJson(result.suggestions.steepest)},
                                                    {QStringLiteral("valley"), suggestionJson(result.suggestions.valley)}}},
    };
}

QJsonArray lrFindCurveJson(const LrFindResult &result)
{
    QJsonArray curve;
    int step = 0;
    for (const RangeTestPoint &p : result.curve.points())
        curve.append(QJsonObject{{QStringLiteral("step"), ++step}, {QStringLiteral("lr"), p.lr},
                                 {QStringLiteral("loss"), numberOrNull(p.loss)}, {QStringLiteral("smoothed_loss"), numberOrNull(p.smoothed)}});
    return curve;
}

QStringList asciiLossCurve(const std::vector<RangeTestPoint> &points, const RateSuggestions &suggestions, int width, int height,
                           size_t fitted)
{
    std::vector<RangeTestPoint> finite;
    std::copy_if(points.begin(), points.end(), std::back_inserter(finite), [](const RangeTestPoint &p) { return std::isfinite(p.smoothed); });
    if (finite.size() < 2 || width < 10 || height < 3)
        return {};
    const double x0 = std::log10(finite.front().lr), x1 = std::log10(finite.back().lr);
    double y0 = finite.front().smoothed, y1 = y0;
    for (size_t i = 0; i < std::min(fitted, points.size()); ++i)
        if (std::isfinite(points[i].smoothed)) {
            y0 = std::min(y0, points[i].smoothed);
            y1 = std::max(y1, points[i].smoothed);
        }
    if (y1 <= y0)
        y1 = y0 + 1;
    const auto column = [&](double lr) { return x1 > x0 ? std::clamp(int(std::lround((std::log10(lr) - x0) / (x1 - x0) * (width - 1))), 0, width - 1) : 0; };
    QList<QString> grid(height, QString(width, QLatin1Char(' ')));
    for (const RangeTestPoint &p : finite) {
        const int row = std::clamp(int(std::lround((y1 - p.smoothed) / (y1 - y0) * (height - 1))), 0, height - 1);
        grid[row][column(p.lr)] = p.smoothed > y1 ? QLatin1Char('^') : QLatin1Char('*');
    }
    QString marks(width, QLatin1Char(' '));
    if (suggestions.valley)
        marks[column(suggestions.valley->lr)] = QLatin1Char('v');
    if (suggestions.steepest)
        marks[column(suggestions.steepest->lr)] = QLatin1Char('s');
    QStringList lines;
    const QString top = QString::number(y1, 'g', 4), bottom = QString::number(y0, 'g', 4);
    const int margin = int(std::max(top.size(), bottom.size()));
    for (int r = 0; r < height; ++r)
        lines << (r == 0 ? top : r == height - 1 ? bottom : QString()).rightJustified(margin) + QStringLiteral(" |") + grid[r];
    lines << QString(margin, QLatin1Char(' ')) + QStringLiteral(" +") + QString(width, QLatin1Char('-'));
    lines << QString(margin + 2, QLatin1Char(' ')) + marks;
    const QString left = rateText(finite.front().lr), right = rateText(finite.back().lr);
    lines << QString(margin + 2, QLatin1Char(' ')) + left + QString(std::max(1, width - int(left.size() + right.size())), QLatin1Char(' ')) + right
          << QString(margin + 2, QLatin1Char(' ')) + QStringLiteral("learning rate (log scale); v valley, s steepest descent, ^ off the scale");
    return lines;
}

QStringList lrFindReportLines(const LrFindOptions &options, const LrFindResult &result)
{
    const std::vector<RangeTestPoint> &points = result.curve.points();
    QStringList lines;
    lines << QStringLiteral("learning-rate range test of %1 (%2): %3 steps from %4 to %5, batch %6")
                 .arg(result.optimizerNode, result.optimizerType).arg(options.steps).arg(rateText(options.minLr), rateText(options.maxLr))
                 .arg(result.batchSize);
    if (!result.scheduleNode.isEmpty())
        lines << QStringLiteral("the schedule node %1 is not applied during the test: the rate is set at each step").arg(result.scheduleNode);
    if (result.curve.stopped())
        lines << QStringLiteral("stopped early at step %1 of %2: %3").arg(points.size()).arg(options.steps).arg(result.curve.stopReason());
    else
        lines << QStringLiteral("ran all %1 steps without the loss running away (a larger --max may show where it does)").arg(points.size());
    lines << QString() << QStringLiteral("   step  lr          loss        smoothed");
    const size_t every = std::max<size_t>(1, (points.size() + 11) / 12);
    for (size_t i = 0; i < points.size(); ++i)
        if (i % every == 0 || i + 1 == points.size())
            lines << QStringLiteral("  %1  %2  %3  %4").arg(i + 1, 5).arg(rateText(points[i].lr), -10)
                         .arg(QString::number(points[i].loss, 'g', 5), -10).arg(QString::number(points[i].smoothed, 'g', 5));
    lines << QString();
    lines << asciiLossCurve(points, result.suggestions, 60, 12, suggestionPoints(result.curve).size());
    lines << QString() << QStringLiteral("suggestions:");
    const auto suggestionLine = [&](const QString &name, const std::optional<RateSuggestion> &s) {
        lines << (s ? QStringLiteral("  %1 %2  (step %3; --set %4.lr=%5)").arg(name, -9).arg(rateText(s->lr)).arg(s->index + 1)
                          .arg(result.optimizerNode, QString::number(s->lr, 'g', 3))
                    : QStringLiteral("  %1 none: the smoothed loss never fell").arg(name, -9));
    };
    suggestionLine(QStringLiteral("valley"), result.suggestions.valley);
    suggestionLine(QStringLiteral("steepest"), result.suggestions.steepest);
    return lines;
}

} // namespace ty::cli
