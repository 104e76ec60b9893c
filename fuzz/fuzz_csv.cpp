// The CSV reader in memory, then the CSV data set (columns, labels, split, standardization) through a file.
// The first input byte picks the task, standardization and how many rows the parser keeps.
#include "dataset_loader.h"
#include "csv_reader.h"
#include "fuzz_support.h"

#include <QJsonObject>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const uint8_t options = data[0];
    const QByteArray text = ty::fuzz::bytesOf(data + 1, size - 1);
    (void)ty::parseCsv(text, QStringLiteral("fuzz.csv"), (options & 4) ? 3 : -1);
    double number = 0;
    (void)ty::parseCsvNumber(text.left(64), &number);

    const QString path = ty::fuzz::writeScratchFile(QStringLiteral("table.csv"), data + 1, size - 1);
    ty::DatasetRequest request;
    request.blockType = QStringLiteral("dataset.csv");
    request.nodeId = QStringLiteral("data");
    request.params = {{QStringLiteral("path"), path},
                      {QStringLiteral("target"), (options & 8) ? QStringLiteral("label") : QStringLiteral("column1")},
                      {QStringLiteral("features"), (options & 16) ? QStringLiteral("a, b") : QString()},
                      {QStringLiteral("task"), (options & 1) ? QStringLiteral("regression") : QStringLiteral("classification")},
                      {QStringLiteral("standardize"), bool(options & 2)},
                      {QStringLiteral("test_fraction"), 0.25},
                      {QStringLiteral("val_fraction"), 0.25}};
    if (ty::describeDataset(request))
        (void)ty::loadDataset(request);
    return 0;
}
