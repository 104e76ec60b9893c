#pragma once
// `trainyard-cli augment --serve`: the augmentation preview as a long-lived worker (the app's inspector keeps one).
// One JSON request a line on stdin, one JSON reply a line on stdout, in order, until stdin closes:
//   {"id": any, "preset": {...} | "preset_file": PATH, "set": ["KEY=VALUE", ...], "node": ID, "seed": S, "sample": I, "count": N}
// A reply is `augment --json`'s object on one line with the request's "id", or {"id", "error": message, "field",
// "node"} for a request it cannot answer (the field of the request at fault, or the preset's node and parameter);
// the worker keeps serving. The data set and the compiled pipeline are kept between requests
// (AugmentationPreviewer): a new seed, sample or node costs one forward pass. Every reply also carries
// "dataset_loads" and "compilations": how often this worker has loaded a data set and compiled a preset so far (the
// app warms its worker with a preview request whose reply it does not draw; its first preview then grows neither).

#include "augmentation_preview.h"
#include "cli.h"

#include <QJsonObject>

#include <istream>

namespace ty::cli {

// `augment --json`'s object for one preview (cmd_augment.cpp).
QJsonObject augmentationPreviewJson(const AugmentationPreviewOptions &options, const AugmentationPreview &preview);

// The reply to one request line.
QJsonObject serveAugmentRequest(AugmentationPreviewer &previewer, const QByteArray &line);
// Answers the lines of `in` until it ends; returns the exit code (0).
int serveAugmentRequests(std::istream &in, Io &io);

} // namespace ty::cli
