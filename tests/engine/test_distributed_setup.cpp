// Where a process stands in a distributed run, read from the variables launchers set (docs/distributed.md).

#include "test_suite.h"

#include "distributed.h"

#include <QtTest>

using namespace ty;

class TestDistributedSetup : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void torchrunVariables();
    void slurmVariables();
    void oneProcessIsNotDistributed();
    void malformedVariablesAreNamed_data();
    void malformedVariablesAreNamed();
};

namespace {

QProcessEnvironment environmentOf(const QList<QPair<QString, QString>> &variables)
{
    QProcessEnvironment environment;
    for (const auto &[name, value] : variables)
        environment.insert(name, value);
    return environment;
}

} // namespace

void TestDistributedSetup::torchrunVariables()
{
    const Result<DistributedSetup> setup = distributedSetupFromEnvironment(environmentOf(
        {{QStringLiteral("RANK"), QStringLiteral("3")}, {QStringLiteral("WORLD_SIZE"), QStringLiteral("4")},
         {QStringLiteral("LOCAL_RANK"), QStringLiteral("1")}, {QStringLiteral("LOCAL_WORLD_SIZE"), QStringLiteral("2")},
         {QStringLiteral("MASTER_ADDR"), QStringLiteral("10.0.0.7")}, {QStringLiteral("MASTER_PORT"), QStringLiteral("29600")}}));
    QVERIFY2(setup, qPrintable(setup ? QString() : setup.error().toString()));
    QCOMPARE(setup.value().rank, 3);
    QCOMPARE(setup.value().worldSize, 4);
    QCOMPARE(setup.value().localRank, 1);
    QCOMPARE(setup.value().localWorldSize, 2);
    QCOMPARE(setup.value().masterAddr, QStringLiteral("10.0.0.7"));
    QCOMPARE(setup.value().masterPort, 29600);
    QCOMPARE(setup.value().launcher, QStringLiteral("torchrun"));
}

// srun's tasks per node ("2(x2),1": two on each of two nodes, then one) say how many processes share a machine.
void TestDistributedSetup::slurmVariables()
{
    const Result<DistributedSetup> setup = distributedSetupFromEnvironment(environmentOf(
        {{QStringLiteral("SLURM_PROCID"), QStringLiteral("4")}, {QStringLiteral("SLURM_STEP_NUM_TASKS"), QStringLiteral("5")},
         {QStringLiteral("SLURM_LOCALID"), QStringLiteral("0")}, {QStringLiteral("SLURM_STEP_TASKS_PER_NODE"), QStringLiteral("2(x2),1")}}));
    QVERIFY2(setup, qPrintable(setup ? QString() : setup.error().toString()));
    QCOMPARE(setup.value().rank, 4);
    QCOMPARE(setup.value().worldSize, 5);
    QCOMPARE(setup.value().localRank, 0);
    QCOMPARE(setup.value().localWorldSize, 2);
    QCOMPARE(setup.value().launcher, QStringLiteral("slurm"));
}

void TestDistributedSetup::oneProcessIsNotDistributed()
{
    const Result<DistributedSetup> none = distributedSetupFromEnvironment(QProcessEnvironment());
    QVERIFY(none && !none.value().distributed());
    const Result<DistributedSetup> one = distributedSetupFromEnvironment(
        environmentOf({{QStringLiteral("RANK"), QStringLiteral("0")}, {QStringLiteral("WORLD_SIZE"), QStringLiteral("1")}}));
    QVERIFY(one && !one.value().distributed());
}

void TestDistributedSetup::malformedVariablesAreNamed_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("value");
    QTest::newRow("rank") << QStringLiteral("RANK") << QStringLiteral("one");
    QTest::newRow("local world size") << QStringLiteral("LOCAL_WORLD_SIZE") << QStringLiteral("0");
    QTest::newRow("port") << QStringLiteral("MASTER_PORT") << QStringLiteral("70000");
}

void TestDistributedSetup::malformedVariablesAreNamed()
{
    QFETCH(QString, name);
    QFETCH(QString, value);
    QProcessEnvironment environment = environmentOf({{QStringLiteral("RANK"), QStringLiteral("1")}, {QStringLiteral("WORLD_SIZE"), QStringLiteral("2")}});
    environment.insert(name, value);
    const Result<DistributedSetup> setup = distributedSetupFromEnvironment(environment);
    QVERIFY(!setup);
    QVERIFY2(setup.error().message.contains(name), qPrintable(setup.error().message));
}

TY_TEST_CLASS(TestDistributedSetup)

#include "test_distributed_setup.moc"
