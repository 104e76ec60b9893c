#include "test_datasets.h"

#include <QTest>

QTEST_GUILESS_MAIN(TestDatasets)
