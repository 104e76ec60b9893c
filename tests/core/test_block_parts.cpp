// One place per block kind, torch-free layers: every block of the registry has its part in core/shapes (a shape
// rule and a cost rule for transforms and layers, a head rule for losses and metrics, a state rule for optimizers) and core/data
// (a reader for datasets), and every registration there belongs to a block of the right category. tests/engine's
// registration test does the same for the engine's builders, loss and metric functions, optimizers and schedules.

#include "test_suite.h"
#include "core_test_support.h"

#include "block_registry.h"
#include "dataset_loader.h"
#include "shape_rules.h"

#include <QtTest>

#include <initializer_list>

using namespace ty;

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

QString list(const QStringList &typeIds)
{
    return typeIds.join(QStringLiteral(", "));
}

class TestBlockParts : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyKindHasItsShapeRule()
    {
        const QStringList ops = missingFrom(ShapeRules::builtin().ops, {BlockCategory::Transform, BlockCategory::Layer});
        QVERIFY2(ops.isEmpty(), qPrintable(QStringLiteral("no shape rule (core/shapes/shape_rules_*.cpp) for: ") + list(ops)));
        const QStringList costs = missingFrom(ShapeRules::builtin().costs, {BlockCategory::Transform, BlockCategory::Layer});
        QVERIFY2(costs.isEmpty(), qPrintable(QStringLiteral("no cost rule (core/shapes/shape_rules_costs.cpp) for: ") + list(costs)));
        const QStringList heads = missingFrom(ShapeRules::builtin().heads, {BlockCategory::Loss, BlockCategory::Metric});
        QVERIFY2(heads.isEmpty(), qPrintable(QStringLiteral("no head rule (core/shapes/shape_rules_heads.cpp) for: ") + list(heads)));
        const QStringList optimizers = missingFrom(ShapeRules::builtin().optimizers, {BlockCategory::Optimizer});
        QVERIFY2(optimizers.isEmpty(), qPrintable(QStringLiteral("no optimizer state rule (core/shapes/shape_rules_optimizers.cpp) for: ")
                                                  + list(optimizers)));
    }

    void everyDatasetHasAReader()
    {
        const QStringList missing = missingFrom(datasetReaders(), {BlockCategory::Dataset});
        QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("no reader (core/data/dataset_loader.cpp) for: ") + list(missing)));
        for (const QString &typeId : datasetReaders().typeIds()) {
            const DatasetReader *reader = datasetReaders().find(typeId);
            QVERIFY2(reader->describe && reader->load, qPrintable(typeId));
        }
    }

    void everyRegistrationHasADescriptor()
    {
        const QStringList ops = strayIn(ShapeRules::builtin().ops, {BlockCategory::Transform, BlockCategory::Layer});
        QVERIFY2(ops.isEmpty(), qPrintable(QStringLiteral("shape rules for no transform or layer block: ") + list(ops)));
        const QStringList costs = strayIn(ShapeRules::builtin().costs, {BlockCategory::Transform, BlockCategory::Layer});
        QVERIFY2(costs.isEmpty(), qPrintable(QStringLiteral("cost rules for no transform or layer block: ") + list(costs)));
        const QStringList heads = strayIn(ShapeRules::builtin().heads, {BlockCategory::Loss, BlockCategory::Metric});
        QVERIFY2(heads.isEmpty(), qPrintable(QStringLiteral("head rules for no loss or metric block: ") + list(heads)));
        const QStringList optimizers = strayIn(ShapeRules::builtin().optimizers, {BlockCategory::Optimizer});
        QVERIFY2(optimizers.isEmpty(), qPrintable(QStringLiteral("optimizer state rules for no optimizer block: ") + list(optimizers)));
        const QStringList datasets = strayIn(datasetReaders(), {BlockCategory::Dataset});
        QVERIFY2(datasets.isEmpty(), qPrintable(QStringLiteral("readers for no dataset block: ") + list(datasets)));
    }

    void unknownKindsAreClearErrors()
    {
        const Result<OpShape> op = inferOpShape(QStringLiteral("layer.nonexistent"), QStringLiteral("n1"), {}, {{4}});
        QVERIFY(!op);
        QCOMPARE(op.error().message, QStringLiteral("no shape rule for block \"layer.nonexistent\""));
        QCOMPARE(op.error().node, QStringLiteral("n1"));
        QCOMPARE(op.error().field, QStringLiteral("block"));
        QCOMPARE(headProblem(QStringLiteral("loss.nonexistent"), {3}, DatasetShape{}, {}),
                 QStringLiteral("no shape rule for block \"loss.nonexistent\""));
        const Result<DatasetShape> data = describeDataset(DatasetRequest{QStringLiteral("dataset.nonexistent"), QStringLiteral("d"), {}, {}});
        QVERIFY(!data);
        QCOMPARE(data.error().node, QStringLiteral("d"));
        QVERIFY2(data.error().message.contains(QStringLiteral("dataset.nonexistent")), qPrintable(data.error().message));
    }
};

} // namespace

TY_TEST_CLASS(TestBlockParts)

#include "test_block_parts.moc"
