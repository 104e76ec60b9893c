#include "detail/optimization.h"

#include <cmath>

namespace ty::detail {

namespace {
double num(const QJsonObject &params, const char *key) { return params.value(QString::fromLatin1(key)).toDouble(); }
} // namespace

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const QString &type, const QJsonObject &p,
                                                       const std::vector<torch::Tensor> &parameters)
{
    using namespace torch::optim;
    if (type == QStringLiteral("optimizer.sgd")) {
        const bool nesterov = p.value(QStringLiteral("nesterov")).toBool() && num(p, "momentum") > 0;
        return std::make_unique<SGD>(parameters, SGDOptions(num(p, "lr")).momentum(num(p, "momentum"))
                                                      .nesterov(nesterov).weight_decay(num(p, "weight_decay")));
    }
    if (type == QStringLiteral("optimizer.adam"))
        return std::make_unique<Adam>(parameters, AdamOptions(num(p, "lr")).betas({num(p, "beta1"), num(p, "beta2")})
                                                      .eps(num(p, "eps")).weight_decay(num(p, "weight_decay")));
    if (type == QStringLiteral("optimizer.adamw"))
        return std::make_unique<AdamW>(parameters, AdamWOptions(num(p, "lr")).betas({num(p, "beta1"), num(p, "beta2")})
                                                       .eps(num(p, "eps")).weight_decay(num(p, "weight_decay")));
    if (type == QStringLiteral("optimizer.rmsprop"))
        return std::make_unique<RMSprop>(parameters, RMSpropOptions(num(p, "lr")).alpha(num(p, "alpha")).eps(num(p, "eps"))
                                                         .momentum(num(p, "momentum")).weight_decay(num(p, "weight_decay")));
    if (type == QStringLiteral("optimizer.adagrad"))
        return std::make_unique<Adagrad>(parameters, AdagradOptions(num(p, "lr")).lr_decay(num(p, "lr_decay"))
                                                         .eps(num(p, "eps")).weight_decay(num(p, "weight_decay")));
    throw std::runtime_error("no optimizer " + type.toStdString());
}

double scheduledLearningRate(const QString &type, const QJsonObject &p, double baseLr, int64_t step,
                             int64_t stepsPerEpoch, int64_t totalSteps)
{
    const double pi = 3.14159265358979323846;
    const int64_t epoch = stepsPerEpoch > 0 ? step / stepsPerEpoch : 0;
    if (type == QStringLiteral("schedule.step"))
        return baseLr * std::pow(num(p, "gamma"), double(epoch / std::max<int64_t>(1, int64_t(num(p, "step_size")))));
    if (type == QStringLiteral("schedule.exponential"))
        return baseLr * std::pow(num(p, "gamma"), double(epoch));
    const double minLr = num(p, "min_lr");
    if (type == QStringLiteral("schedule.cosine")) {
        const double t = totalSteps > 1 ? double(step) / double(totalSteps - 1) : 1.0;
        return minLr + (baseLr - minLr) * 0.5 * (1.0 + std::cos(pi * std::min(1.0, t)));
    }
    if (type == QStringLiteral("schedule.warmup_cosine")) {
        const int64_t warmup = int64_t(std::llround(num(p, "warmup_fraction") * double(totalSteps)));
        if (step < warmup)
            return baseLr * double(step + 1) / double(warmup);
        const int64_t rest = std::max<int64_t>(1, totalSteps - warmup - 1);
        const double t = std::min(1.0, double(step - warmup) / double(rest));
        return minLr + (baseLr - minLr) * 0.5 * (1.0 + std::cos(pi * t));
    }
    return baseLr;
}

void setLearningRate(torch::optim::Optimizer &optimizer, double lr)
{
    for (auto &group : optimizer.param_groups())
        group.options().set_lr(lr);
}

} // namespace ty::detail
