// One place per block kind, the engine's layer: every block of the registry has its part here (a builder for
// transforms and layers, a loss function for losses, a metric function for metrics, a factory for optimizers,
// a learning-rate function for schedules), and every registration belongs to a block of the right category.
// tests/core's block-parts test does the same for the shape rules and dataset readers. The memory estimate's
// optimizer state rules (core/shapes) agree with the state LibTorch's optimizers really keep.

#include "block_registry.h"
#include "detail/compiled_pipeline.h"
#include "detail/optimizer_state.h"
#include "shape_rules.h"
#include "test_engine_classes.h"

#include <QtTest>

#include <initializer_list>

using namespace ty;
using namespace ty::detail;

namespace {

using Categories = std::initializer_list<BlockCategory>;

bool inCategories(BlockCategory category, Categories categories)
{
    for (BlockCategory c : categories)
        if (c == category)
            return true;
    return false;
}

// The blocks of `categories` that `table` has no registration for.
template <typename Entry>
QStringList missingFrom(const KindTable<Entry> &table, Categories categories)
{
    QStringList missing;
    for (const BlockDescriptor &block : BlockRegistry::builtin().all())
        if (inCategories(block.category, categories) && !table.contains(block.typeId))
            missing << block.typeId;
    return missing;
}

// The registrations of `table` that name no block of `categories`.
template <typename Entry>
QStringList strayIn(const KindTable<Entry> &table, Categories categories)
{
    QStringList stray;
    for (const QString &typeId : table.typeIds()) {
        const BlockDescriptor *block = BlockRegistry::builtin().find(typeId);
        if (!block || !inCategories(block->category, categories))
            stray << typeId;
    }
    return stray;
}

template <typename Entry>
void checkTable(const KindTable<Entry> &table, Categories categories, const char *part)
{
    const QStringList missing = missingFrom(table, categories);
    QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("no %1 for: %2").arg(QString::fromLatin1(part), missing.join(QStringLiteral(", ")))));
    const QStringList stray = strayIn(table, categories);
    QVERIFY2(stray.isEmpty(), qPrintable(QStringLiteral("%1 registered for no block of its category: %2")
                                             .arg(QString::fromLatin1(part), stray.join(QStringLiteral(", ")))));
}

} // namespace

void TestBlockRegistrations::everyNetworkKindHasABuilder()
{
    checkTable(opBuilders(), {BlockCategory::Transform, BlockCategory::Layer}, "builder (detail/op_builders_*.cpp)");
}

void TestBlockRegistrations::everyLossHasALossFunction()
{
    checkTable(lossFunctions(), {BlockCategory::Loss}, "loss function (detail/loss_functions.cpp)");
}

void TestBlockRegistrations::everyMetricHasAMetricFunction()
{
    checkTable(metricFunctions(), {BlockCategory::Metric}, "metric function (detail/metric_functions.cpp)");
}

void TestBlockRegistrations::everyOptimizerHasAFactory()
{
    checkTable(optimizerFactories(), {BlockCategory::Optimizer}, "optimizer factory (detail/optimizer_factories.cpp)");
}

void TestBlockRegistrations::everyScheduleHasALearningRateFunction()
{
    checkTable(scheduleFunctions(), {BlockCategory::Schedule}, "schedule function (detail/learning_rate_schedules.cpp)");
}

void TestBlockRegistrations::unknownKindHasNoBuilder()
{
    PlannedOp op;
    op.nodeId = QStringLiteral("n1");
    op.blockType = QStringLiteral("layer.nonexistent");
    const Result<BuiltOp> built = buildOp(op);
    QVERIFY(!built);
    QCOMPARE(built.error().message, QStringLiteral("no builder for block \"layer.nonexistent\""));
    QCOMPARE(built.error().node, QStringLiteral("n1"));
    QCOMPARE(built.error().field, QStringLiteral("block"));
}

void TestBlockRegistrations::optimizerStateRulesMatchLibTorch_data()
{
    QTest::addColumn<QString>("optimizer");
    QTest::addColumn<QJsonObject>("params");
    for (const BlockDescriptor &block : BlockRegistry::builtin().all()) {
        if (block.category != BlockCategory::Optimizer)
            continue;
        QTest::newRow(qPrintable(block.typeId)) << block.typeId << QJsonObject{};
        if (block.param(QStringLiteral("momentum")))
            QTest::newRow(qPrintable(block.typeId + QStringLiteral(" with momentum")))
                << block.typeId << QJsonObject{{QStringLiteral("momentum"), 0.9}};
    }
}

void TestBlockRegistrations::optimizerStateRulesMatchLibTorch()
{
    QFETCH(QString, optimizer);
    QFETCH(QJsonObject, params);
    const QJsonObject effective = BlockRegistry::builtin().find(optimizer)->effectiveParams(params);
    const OptimizerStateRule *rule = ShapeRules::builtin().optimizers.find(optimizer);
    const OptimizerFactory *factory = optimizerFactories().find(optimizer);
    QVERIFY(rule && factory);

    torch::nn::Linear linear(5, 3);  // 18 parameters
    const std::unique_ptr<torch::optim::Optimizer> opt = (*factory)(effective, linear->parameters());
    for (int step = 0; step < 2; ++step) {
        opt->zero_grad();
        linear->forward(torch::ones({4, 5})).square().sum().backward();
        opt->step();
    }
    int64_t values = 0;  // per-parameter tensors, without the scalar step counts
    for (const auto &[name, tensor] : optimizerStateTensors(*opt, *linear))
        if (!name.endsWith(QStringLiteral("/step")))
            values += tensor.numel();
    QCOMPARE(values, int64_t((*rule)(effective)) * 18);
}
