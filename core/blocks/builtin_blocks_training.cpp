// Loss, optimizer, learning-rate schedule and metric blocks.

#include "block_registry.h"
#include "param_values.h"

namespace ty {

using namespace spec;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

BlockDescriptor block(const QString &id, BlockCategory category, const QString &name, const QString &doc,
                      QList<ParamSpec> params)
{
    BlockDescriptor d;
    d.typeId = id;
    d.category = category;
    d.displayName = name;
    d.doc = doc;
    d.params = std::move(params);
    return d;
}

QList<PortSpec> predictionAndTarget()
{
    return {port(QStringLiteral("input"), PortKind::Tensor, QStringLiteral("The network's predictions")),
            port(QStringLiteral("target"), PortKind::Target, QStringLiteral("The labels or targets"))};
}

BlockDescriptor loss(const QString &id, const QString &name, const QString &doc, QList<ParamSpec> params = {})
{
    params.append(floatParam(QStringLiteral("weight"), 1.0, 0.0, kInf,
                             QStringLiteral("Factor of this loss in the sum that the optimizer minimises")));
    BlockDescriptor d = block(id, BlockCategory::Loss, name, doc, std::move(params));
    d.inputs = predictionAndTarget();
    d.outputs = {port(QStringLiteral("loss"), PortKind::Loss, QStringLiteral("The mean loss of the batch"))};
    return d;
}

ParamSpec lr(double def) { return floatParam(QStringLiteral("lr"), def, 0.0, 10.0, QStringLiteral("Learning rate")); }
ParamSpec weightDecay(double def)
{
    return floatParam(QStringLiteral("weight_decay"), def, 0.0, 10.0, QStringLiteral("L2 penalty (decoupled for AdamW)"));
}

BlockDescriptor optimizer(const QString &id, const QString &name, const QString &doc, QList<ParamSpec> params)
{
    BlockDescriptor d = block(id, BlockCategory::Optimizer, name, doc, std::move(params));
    d.inputs = {port(QStringLiteral("loss"), PortKind::Loss, QStringLiteral("The loss to minimise")),
                port(QStringLiteral("schedule"), PortKind::Schedule, QStringLiteral("Optional learning-rate schedule"), false)};
    return d;
}

BlockDescriptor schedule(const QString &id, const QString &name, const QString &doc, QList<ParamSpec> params)
{
    // Every schedule may start with a linear warm-up.
    params << intParam(QStringLiteral("warmup_steps"), 0, 0, 1e9,
                       QStringLiteral("Steps of linear warm-up: step n takes (n + 1) / warmup_steps of the scheduled rate (0: none)"));
    BlockDescriptor d = block(id, BlockCategory::Schedule, name, doc, std::move(params));
    d.outputs = {port(QStringLiteral("schedule"), PortKind::Schedule, QStringLiteral("Connect to an optimizer"))};
    return d;
}

BlockDescriptor metric(const QString &id, const QString &name, const QString &doc, bool higherIsBetter,
                       QList<ParamSpec> params = {})
{
    BlockDescriptor d = block(id, BlockCategory::Metric, name, doc, std::move(params));
    d.inputs = predictionAndTarget();
    d.higherIsBetter = higherIsBetter;
    return d;
}

} // namespace

void addLossBlocks(BlockRegistry &registry)
{
    registry.add(loss(QStringLiteral("loss.cross_entropy"), QStringLiteral("Cross entropy"),
                      QStringLiteral("Softmax cross entropy of class logits against class labels"),
                      {floatParam(QStringLiteral("label_smoothing"), 0.0, 0.0, 0.999,
                                  QStringLiteral("Share of the target probability spread over all classes"))}));
    registry.add(loss(QStringLiteral("loss.mse"), QStringLiteral("Mean squared error"),
                      QStringLiteral("Mean of squared differences between predictions and targets")));
    registry.add(loss(QStringLiteral("loss.l1"), QStringLiteral("Mean absolute error"),
                      QStringLiteral("Mean of absolute differences between predictions and targets")));
    registry.add(loss(QStringLiteral("loss.huber"), QStringLiteral("Huber"),
                      QStringLiteral("Squared error near zero, absolute error beyond delta"),
                      {floatParam(QStringLiteral("delta"), 1.0, 1e-12, kInf, QStringLiteral("Where the loss turns linear"))}));
    registry.add(loss(QStringLiteral("loss.bce_with_logits"), QStringLiteral("Binary cross entropy"),
                      QStringLiteral("Sigmoid binary cross entropy of logits against 0/1 targets")));
    registry.add(loss(QStringLiteral("loss.nll"), QStringLiteral("Negative log-likelihood"),
                      QStringLiteral("Minus the log-probability of the label; takes log-probabilities (after a log softmax), "
                                     "not logits")));
    registry.add(loss(QStringLiteral("loss.kl_div"), QStringLiteral("KL divergence"),
                      QStringLiteral("Kullback-Leibler divergence of the predicted distribution (log-probabilities, after "
                                     "a log softmax) from the target's (a label counts as one-hot; target columns as "
                                     "probabilities), averaged over the batch")));
}

void addOptimizerBlocks(BlockRegistry &registry)
{
    registry.add(optimizer(QStringLiteral("optimizer.sgd"), QStringLiteral("SGD"),
                           QStringLiteral("Stochastic gradient descent with optional (Nesterov) momentum"),
                           {lr(0.01), floatParam(QStringLiteral("momentum"), 0.0, 0.0, 1.0, QStringLiteral("Momentum factor")),
                            boolParam(QStringLiteral("nesterov"), false, QStringLiteral("Use Nesterov momentum (needs momentum > 0)")),
                            weightDecay(0.0)}));
    const QList<ParamSpec> adamParams{
        floatParam(QStringLiteral("beta1"), 0.9, 0.0, 0.999999, QStringLiteral("Decay of the first-moment estimate")),
        floatParam(QStringLiteral("beta2"), 0.999, 0.0, 0.999999, QStringLiteral("Decay of the second-moment estimate")),
        floatParam(QStringLiteral("eps"), 1e-8, 0.0, 1.0, QStringLiteral("Added to the denominator for stability"))};
    registry.add(optimizer(QStringLiteral("optimizer.adam"), QStringLiteral("Adam"),
                           QStringLiteral("Adaptive moment estimation"), QList<ParamSpec>{lr(0.001)} + adamParams + QList<ParamSpec>{weightDecay(0.0)}));
    registry.add(optimizer(QStringLiteral("optimizer.adamw"), QStringLiteral("AdamW"),
                           QStringLiteral("Adam with decoupled weight decay"), QList<ParamSpec>{lr(0.001)} + adamParams + QList<ParamSpec>{weightDecay(0.01)}));
    registry.add(optimizer(QStringLiteral("optimizer.rmsprop"), QStringLiteral("RMSprop"),
                           QStringLiteral("Divides the gradient by a running average of its magnitude"),
                           {lr(0.01), floatParam(QStringLiteral("alpha"), 0.99, 0.0, 1.0, QStringLiteral("Smoothing constant")),
                            floatParam(QStringLiteral("eps"), 1e-8, 0.0, 1.0, QStringLiteral("Added to the denominator for stability")),
                            floatParam(QStringLiteral("momentum"), 0.0, 0.0, 1.0, QStringLiteral("Momentum factor")),
                            weightDecay(0.0)}));
    registry.add(optimizer(QStringLiteral("optimizer.adagrad"), QStringLiteral("Adagrad"),
                           QStringLiteral("Per-parameter learning rates scaled by accumulated squared gradients"),
                           {lr(0.01), floatParam(QStringLiteral("lr_decay"), 0.0, 0.0, 1.0, QStringLiteral("Learning-rate decay")),
                            floatParam(QStringLiteral("eps"), 1e-10, 0.0, 1.0, QStringLiteral("Added to the denominator for stability")),
                            weightDecay(0.0)}));
}

void addScheduleBlocks(BlockRegistry &registry)
{
    registry.add(schedule(QStringLiteral("schedule.step"), QStringLiteral("Step decay"),
                          QStringLiteral("Multiplies the learning rate by gamma every step_size epochs"),
                          {intParam(QStringLiteral("step_size"), 10, 1, 1e6, QStringLiteral("Epochs between decays")),
                           floatParam(QStringLiteral("gamma"), 0.1, 0.0, 1.0, QStringLiteral("Decay factor"))}));
    registry.add(schedule(QStringLiteral("schedule.exponential"), QStringLiteral("Exponential decay"),
                          QStringLiteral("Multiplies the learning rate by gamma after every epoch"),
                          {floatParam(QStringLiteral("gamma"), 0.95, 0.0, 1.0, QStringLiteral("Decay factor per epoch"))}));
    registry.add(schedule(QStringLiteral("schedule.cosine"), QStringLiteral("Cosine annealing"),
                          QStringLiteral("Anneals the learning rate along a half cosine to min_lr over the whole run, step by step"),
                          {floatParam(QStringLiteral("min_lr"), 0.0, 0.0, 10.0, QStringLiteral("Learning rate at the end"))}));
    registry.add(schedule(QStringLiteral("schedule.warmup_cosine"), QStringLiteral("Warmup, then cosine"),
                          QStringLiteral("Rises linearly from zero to the learning rate, then anneals along a cosine (one-cycle style)"),
                          {floatParam(QStringLiteral("warmup_fraction"), 0.1, 0.0, 1.0,
                                      QStringLiteral("Share of all steps spent warming up")),
                           floatParam(QStringLiteral("min_lr"), 0.0, 0.0, 10.0, QStringLiteral("Learning rate at the end"))}));
    registry.add(schedule(QStringLiteral("schedule.multi_step"), QStringLiteral("Multi-step decay"),
                          QStringLiteral("Multiplies the learning rate by gamma at each milestone epoch"),
                          {floatListParam(QStringLiteral("milestones"), {30.0, 60.0, 90.0},
                                          QStringLiteral("Epochs (counted from 0) at which the rate is multiplied by gamma")),
                           floatParam(QStringLiteral("gamma"), 0.1, 0.0, 1.0, QStringLiteral("Decay factor"))}));
    registry.add(schedule(QStringLiteral("schedule.one_cycle"), QStringLiteral("One cycle"),
                          QStringLiteral("Smith's one cycle: up from lr / div_factor to the optimizer's lr, then down to "
                                         "lr / div_factor / final_div_factor, along cosines"),
                          {floatParam(QStringLiteral("pct_start"), 0.3, 0.0, 1.0, QStringLiteral("Share of the steps spent rising")),
                           floatParam(QStringLiteral("div_factor"), 25.0, 1.0, 1e6, QStringLiteral("The first rate is lr / div_factor")),
                           floatParam(QStringLiteral("final_div_factor"), 1e4, 1.0, 1e9,
                                      QStringLiteral("The last rate is the first / final_div_factor"))}));
    registry.add(schedule(QStringLiteral("schedule.reduce_on_plateau"), QStringLiteral("Reduce on plateau"),
                          QStringLiteral("Multiplies the learning rate by factor when an epoch metric stops improving for "
                                         "more than patience epochs"),
                          {metricNameParam(QStringLiteral("metric"), QStringLiteral("val/loss"),
                                           QStringLiteral("The epoch metric watched: val/loss, train/loss or val/<metric node>")),
                           choiceParam(QStringLiteral("mode"), QStringLiteral("auto"),
                                       {QStringLiteral("auto"), QStringLiteral("min"), QStringLiteral("max")},
                                       QStringLiteral("Whether lower or higher is better (auto: as the metric says)")),
                           floatParam(QStringLiteral("factor"), 0.1, 1e-6, 0.999999, QStringLiteral("Multiplies the rate at each reduction")),
                           intParam(QStringLiteral("patience"), 10, 0, 1e6,
                                    QStringLiteral("Epochs without improvement tolerated; one more reduces the rate")),
                           floatParam(QStringLiteral("threshold"), 1e-4, 0.0, 1.0,
                                      QStringLiteral("Share of the best value by which a value must beat it to count as better")),
                           intParam(QStringLiteral("cooldown"), 0, 0, 1e6, QStringLiteral("Epochs after a reduction before bad epochs count again")),
                           floatParam(QStringLiteral("min_lr"), 0.0, 0.0, 10.0, QStringLiteral("The rate never goes below this"))}));
}

void addMetricBlocks(BlockRegistry &registry)
{
    registry.add(metric(QStringLiteral("metric.accuracy"), QStringLiteral("Accuracy"),
                        QStringLiteral("Share of samples whose highest logit is the label"), true));
    registry.add(metric(QStringLiteral("metric.top_k_accuracy"), QStringLiteral("Top-k accuracy"),
                        QStringLiteral("Share of samples whose label is among the k highest logits"), true,
                        {intParam(QStringLiteral("k"), 5, 1, 1000, QStringLiteral("How many of the highest logits count"))})
        .withNodeIdPrefix(QStringLiteral("topk")));
    registry.add(metric(QStringLiteral("metric.mae"), QStringLiteral("Mean absolute error"),
                        QStringLiteral("Mean absolute difference between predictions and targets"), false));
    registry.add(metric(QStringLiteral("metric.precision"), QStringLiteral("Precision (macro)"),
                        QStringLiteral("Per class, the share of its predictions that are right; averaged over the classes"), true));
    registry.add(metric(QStringLiteral("metric.recall"), QStringLiteral("Recall (macro)"),
                        QStringLiteral("Per class, the share of its samples predicted as it; averaged over the classes"), true));
    registry.add(metric(QStringLiteral("metric.f1"), QStringLiteral("F1 (macro)"),
                        QStringLiteral("Per class, the harmonic mean of precision and recall; averaged over the classes"), true));
    registry.add(metric(QStringLiteral("metric.auc"), QStringLiteral("ROC AUC (one-vs-rest)"),
                        QStringLiteral("Area under the ROC curve of each class's softmax probability against the rest, "
                                       "over a whole validation or test pass (no per-step figure); macro average, or the "
                                       "positive class's for two classes"), true)
                     .measuringPerPass());
    registry.add(metric(QStringLiteral("metric.rmse"), QStringLiteral("Root mean squared error"),
                        QStringLiteral("Square root of the mean squared difference between predictions and targets"), false));
    registry.add(metric(QStringLiteral("metric.r2"), QStringLiteral("R²"),
                        QStringLiteral("Coefficient of determination: 1 minus the residual over the total sum of squares, "
                                       "per target column, averaged"), true));
}

} // namespace ty
