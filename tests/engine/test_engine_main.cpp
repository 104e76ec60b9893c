// Runs every engine test class; fails when any of them fails.

#include "test_engine_classes.h"

#include <QCoreApplication>
#include <QtTest>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    int failures = 0;
    {
        TestBlockRegistrations t;
        failures += QTest::qExec(&t, argc, argv);
    }
    {
        TestCompiler t;
        failures += QTest::qExec(&t, argc, argv);
    }
    {
        TestShapes t;
        failures += QTest::qExec(&t, argc, argv);
    }
    {
        TestShapeRules t;
        failures += QTest::qExec(&t, argc, argv);
    }
    {
        TestTraining t;
        failures += QTest::qExec(&t, argc, argv);
    }
    {
        TestCheckpoints t;
        failures += QTest::qExec(&t, argc, argv);
    }
    {
        TestStages t;
        failures += QTest::qExec(&t, argc, argv);
    }
    {
        TestEvaluation t;
        failures += QTest::qExec(&t, argc, argv);
    }
    return failures == 0 ? 0 : 1;
}
