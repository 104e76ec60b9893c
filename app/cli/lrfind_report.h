#pragma once
// trainyard-cli lrfind's options and output (cmd_lrfind.cpp): the --min, --max and --steps checks, the result as
// recorded in the run database (RunInfo::result) and printed with --json, and the text report with its ASCII curve.

#include "cli_args.h"
#include "learning_rate_finder.h"

#include <QJsonObject>
#include <QStringList>

namespace ty::cli {

// The test's range from --min, --max and --steps (defaults 1e-7, 10 and 100). Empty `error` when they are
// usable; otherwise it names the option: a rate that is not a positive finite number, --min not below --max,
// --steps not a whole number from 5 to 100000.
LrFindOptions lrFindOptionsFrom(const Args &args, QString *error);

// What the test found, without its curve: the range, the optimizer node, how it ended, the suggestions
// ({"lr", "step"} or null each). Stored as the run's result.
QJsonObject lrFindResultJson(const LrFindOptions &options, const LrFindResult &result, double presetLr);

// The curve, one object per step: {"step", "lr", "loss", "smoothed_loss"} (null for a non-finite loss).
QJsonArray lrFindCurveJson(const LrFindResult &result);

// The text report: the range and optimizer, how the test ended, a table of every few steps, an ASCII plot of the
// smoothed loss against log10(lr) with the suggestions marked, and the suggestions with the --set that applies one.
QStringList lrFindReportLines(const LrFindOptions &options, const LrFindResult &result);

// The plot alone: `width` x `height` characters of the smoothed loss over log10(lr) ('*'), the valley ('v') and
// steepest ('s') columns marked under it, and the axes' ranges. The loss axis spans the first `fitted` points (a
// stopped test's curve without the point that ran away); a point above it is drawn on the top row as '^'.
QStringList asciiLossCurve(const std::vector<RangeTestPoint> &points, const RateSuggestions &suggestions, int width, int height,
                           size_t fitted);

} // namespace ty::cli
