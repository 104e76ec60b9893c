// The state of every optimizer.* block, in values per trainable parameter: the fields LibTorch 1.13 keeps per
// parameter (core/engine/detail/optimizer_state.cpp names them for checkpoints), less the scalar step counts.

#include "shape_rules.h"

namespace ty {

namespace {

bool hasMomentum(const QJsonObject &params)
{
    return params.value(QStringLiteral("momentum")).toDouble() > 0;
}

int sgdState(const QJsonObject &params) { return hasMomentum(params) ? 1 : 0; }         // momentum_buffer
int adamState(const QJsonObject &) { return 2; }                                         // exp_avg, exp_avg_sq
int rmspropState(const QJsonObject &params) { return hasMomentum(params) ? 2 : 1; }     // square_avg, momentum_buffer
int adagradState(const QJsonObject &) { return 1; }                                      // sum

} // namespace

void addOptimizerStateRules(ShapeRules &rules)
{
    rules.optimizers.add(QStringLiteral("optimizer.sgd"), sgdState);
    rules.optimizers.add(QStringLiteral("optimizer.adam"), adamState);
    rules.optimizers.add(QStringLiteral("optimizer.adamw"), adamState);
    rules.optimizers.add(QStringLiteral("optimizer.rmsprop"), rmspropState);
    rules.optimizers.add(QStringLiteral("optimizer.adagrad"), adagradState);
}

} // namespace ty
