// One place per block kind, the engine's layer: every block of the registry has its part here (a builder for
// transforms and layers, a loss function for losses, a metric function for metrics, a factory for optimizers,
// a learning-rate function for schedules), and every registration belongs to a block of the right category.
// tests/core's block-parts test does the same for the shape rules and dataset readers.

#include "block_registry.h"
#include "detail/compiled_pipeline.h"
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
