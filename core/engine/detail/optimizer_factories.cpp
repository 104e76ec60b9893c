// The factory of every optimizer.* block, one registration per kind, from the node's effective parameters.

#include "detail/optimization.h"

namespace ty::detail {

namespace {

using namespace torch::optim;

double num(const QJsonObject &params, const char *key)
{
    return params.value(QString::fromLatin1(key)).toDouble();
}

std::unique_ptr<Optimizer> makeSgd(const QJsonObject &p, const std::vector<torch::Tensor> &parameters)
{
    // LibTorch refuses Nesterov momentum without momentum; the parameter then means plain SGD.
    const bool nesterov = p.value(QStringLiteral("nesterov")).toBool() && num(p, "momentum") > 0;
    return std::make_unique<SGD>(parameters, SGDOptions(num(p, "lr")).momentum(num(p, "momentum"))
                                                  .nesterov(nesterov).weight_decay(num(p, "weight_decay")));
}

std::unique_ptr<Optimizer> makeAdam(const QJsonObject &p, const std::vector<torch::Tensor> &parameters)
{
    return std::make_unique<Adam>(parameters, AdamOptions(num(p, "lr")).betas({num(p, "beta1"), num(p, "beta2")})
                                                  .eps(num(p, "eps")).weight_decay(num(p, "weight_decay")));
}

std::unique_ptr<Optimizer> makeAdamW(const QJsonObject &p, const std::vector<torch::Tensor> &parameters)
{
    return std::make_unique<AdamW>(parameters, AdamWOptions(num(p, "lr")).betas({num(p, "beta1"), num(p, "beta2")})
                                                   .eps(num(p, "eps")).weight_decay(num(p, "weight_decay")));
}

std::unique_ptr<Optimizer> makeRmsprop(const QJsonObject &p, const std::vector<torch::Tensor> &parameters)
{
    return std::make_unique<RMSprop>(parameters, RMSpropOptions(num(p, "lr")).alpha(num(p, "alpha")).eps(num(p, "eps"))
                                                     .momentum(num(p, "momentum")).weight_decay(num(p, "weight_decay")));
}

std::unique_ptr<Optimizer> makeAdagrad(const QJsonObject &p, const std::vector<torch::Tensor> &parameters)
{
    return std::make_unique<Adagrad>(parameters, AdagradOptions(num(p, "lr")).lr_decay(num(p, "lr_decay"))
                                                     .eps(num(p, "eps")).weight_decay(num(p, "weight_decay")));
}

} // namespace

const KindTable<OptimizerFactory> &optimizerFactories()
{
    static const KindTable<OptimizerFactory> factories = [] {
        KindTable<OptimizerFactory> t;
        t.add(QStringLiteral("optimizer.sgd"), makeSgd);
        t.add(QStringLiteral("optimizer.adam"), makeAdam);
        t.add(QStringLiteral("optimizer.adamw"), makeAdamW);
        t.add(QStringLiteral("optimizer.rmsprop"), makeRmsprop);
        t.add(QStringLiteral("optimizer.adagrad"), makeAdagrad);
        return t;
    }();
    return factories;
}

} // namespace ty::detail
