// The inspector's look at real data: "Preview data" on a dataset node shows the samples per class and split and
// the first training samples; a data set that cannot be read says why; "Compute from data" on a normalize node
// sets mean and std to the training split's statistics, as one undo step.

#include "test_suite.h"
#include "widget_test_support.h"

#include "document/pipeline_document.h"
#include "inspector/dataset_preview.h"
#include "inspector/inspector_panel.h"

#include "block_registry.h"
#include "dataset_loader.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace ty;

namespace {

// Synthetic 3-class 10 x 10 images, normalised, into a linear classifier; `data` may be replaced.
QByteArray presetJson(const QJsonObject &data)
{
    const QJsonArray nodes{
        data,
        QJsonObject{{QStringLiteral("id"), QStringLiteral("norm")}, {QStringLiteral("block"), QStringLiteral("transform.normalize")}},
        QJsonObject{{QStringLiteral("id"), QStringLiteral("flat")}, {QStringLiteral("block"), QStringLiteral("layer.flatten")}},
        QJsonObject{{QStringLiteral("id"), QStringLiteral("fc")}, {QStringLiteral("block"), QStringLiteral("layer.linear")},
                    {QStringLiteral("params"), QJsonObject{{QStringLiteral("out_features"), 3}}}},
        QJsonObject{{QStringLiteral("id"), QStringLiteral("loss")}, {QStringLiteral("block"), QStringLiteral("loss.cross_entropy")}},
        QJsonObject{{QStringLiteral("id"), QStringLiteral("opt")}, {QStringLiteral("block"), QStringLiteral("optimizer.sgd")}}};
    QJsonArray edges;
    for (const auto &[from, to] : {std::pair{"data.features", "norm.in"}, {"norm.out", "flat.in"}, {"flat.out", "fc.in"},
                                   {"fc.out", "loss.input"}, {"data.target", "loss.target"}, {"loss.loss", "opt.loss"}})
        edges.append(QJsonObject{{QStringLiteral("from"), QLatin1String(from)}, {QStringLiteral("to"), QLatin1String(to)}});
    return QJsonDocument(QJsonObject{{QStringLiteral("format"), QStringLiteral("trainyard-preset")}, {QStringLiteral("version"), 1},
                                     {QStringLiteral("nodes"), nodes}, {QStringLiteral("edges"), edges}})
        .toJson();
}

QJsonObject syntheticImages()
{
    return {{QStringLiteral("id"), QStringLiteral("data")}, {QStringLiteral("block"), QStringLiteral("dataset.synthetic")},
            {QStringLiteral("params"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("images")}, {QStringLiteral("features"), 10},
                                                   {QStringLiteral("classes"), 3}, {QStringLiteral("samples"), 300},
                                                   {QStringLiteral("test_samples"), 60}}}};
}

} // namespace

class TestDatasetPreview : public QObject {
    Q_OBJECT

    QTemporaryDir dir;
    std::unique_ptr<PipelineDocument> doc;
    std::unique_ptr<InspectorPanel> panel;

    void open(const QJsonObject &data)
    {
        const QString path = dir.filePath(QStringLiteral("preview.trainyard.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(presetJson(data));
        file.close();
        doc = std::make_unique<PipelineDocument>();
        QVERIFY(doc->load(path).ok());
        panel = std::make_unique<InspectorPanel>(doc.get());
        panel->resize(340, 900);
        panel->show();
    }

private Q_SLOTS:
    void previewShowsClassesAndSamples()
    {
        open(syntheticImages());
        doc->setSelectedNodes({QStringLiteral("data")});
        auto *preview = panel->findChild<DatasetPreview *>();
        QVERIFY(preview);
        QVERIFY(preview->countsTable()->isHidden());
        QSignalSpy finished(preview, &DatasetPreview::finished);
        QTest::mouseClick(preview->loadButton(), Qt::LeftButton);
        QVERIFY(preview->busy());
        QVERIFY(finished.wait(20000));
        QCOMPARE(finished.takeFirst().at(0).toBool(), true);
        // 300 training samples, 10 % for validation: 270 and 30; 60 test samples; three classes.
        QVERIFY2(preview->summaryLabel()->text().startsWith(QStringLiteral("270 training, 30 validation, 60 test samples of [1, 10, 10], 3 classes")),
                 qPrintable(preview->summaryLabel()->text()));
        QTableWidget *counts = preview->countsTable();
        QVERIFY(!counts->isHidden());
        QCOMPARE(counts->rowCount(), 3);
        const int totals[] = {270, 30, 60};
        for (int column = 1; column <= 3; ++column) {
            int sum = 0;
            for (int row = 0; row < 3; ++row)
                sum += counts->item(row, column)->text().toInt();
            QCOMPARE(sum, totals[column - 1]);
        }
        QCOMPARE(preview->sampleCount(), 12);
        QCOMPARE(doc->undoStack()->count(), 0);  // looking changes nothing
    }

    void previewOfUnreadableDataSaysWhy()
    {
        open({{QStringLiteral("id"), QStringLiteral("data")}, {QStringLiteral("block"), QStringLiteral("dataset.csv")},
              {QStringLiteral("params"), QJsonObject{{QStringLiteral("path"), QStringLiteral("missing.csv")}}}});
        doc->setSelectedNodes({QStringLiteral("data")});
        auto *preview = panel->findChild<DatasetPreview *>();
        QVERIFY(preview);
        QSignalSpy finished(preview, &DatasetPreview::finished);
        preview->load();
        QVERIFY(finished.wait(20000));
        QCOMPARE(finished.takeFirst().at(0).toBool(), false);
        QVERIFY2(preview->summaryLabel()->text().contains(QStringLiteral("missing.csv")), qPrintable(preview->summaryLabel()->text()));
        QVERIFY(preview->countsTable()->isHidden());
    }

    void normalizeComputesTheTrainingStatistics()
    {
        open(syntheticImages());
        doc->setSelectedNodes({QStringLiteral("norm")});
        auto *compute = panel->findChild<NormalizeFromData *>();
        QVERIFY(compute);
        QVERIFY(!panel->findChild<DatasetPreview *>());
        QSignalSpy finished(compute, &NormalizeFromData::finished);
        QTest::mouseClick(compute->computeButton(), Qt::LeftButton);
        QVERIFY(finished.wait(20000));
        QCOMPARE(finished.takeFirst().at(0).toBool(), true);

        // The training split's mean and standard deviation, computed here by hand.
        const Node *data = doc->graph().node(QStringLiteral("data"));
        const Result<LoadedDataset> loaded = loadDataset(
            {data->block, data->id, BlockRegistry::builtin().find(data->block)->effectiveParams(data->params), doc->preset().baseDir()});
        QVERIFY(loaded.ok());
        const SampleArray &x = loaded.value().train.x;
        double sum = 0, squares = 0;
        const size_t n = x.isFloat ? x.floats.size() : x.bytes.size();
        for (size_t i = 0; i < n; ++i) {
            const double v = x.isFloat ? x.floats[i] : x.bytes[i] * double(x.scale);
            sum += v;
            squares += v * v;
        }
        const double mean = sum / double(n), stddev = std::sqrt(squares / double(n) - mean * mean);
        const QJsonArray setMean = doc->graph().node(QStringLiteral("norm"))->params.value(QStringLiteral("mean")).toArray();
        const QJsonArray setStd = doc->graph().node(QStringLiteral("norm"))->params.value(QStringLiteral("std")).toArray();
        QCOMPARE(setMean.size(), 1);
        QVERIFY2(std::abs(setMean[0].toDouble() - mean) < 1e-3 * std::abs(mean), qPrintable(QStringLiteral("%1 against %2").arg(setMean[0].toDouble()).arg(mean)));
        QVERIFY2(std::abs(setStd[0].toDouble() - stddev) < 1e-3 * stddev, qPrintable(QStringLiteral("%1 against %2").arg(setStd[0].toDouble()).arg(stddev)));
        QVERIFY(std::abs(setStd[0].toDouble() - 1.0) > 0.01);  // not the default left in place

        // One undo step puts both back.
        QCOMPARE(doc->undoStack()->count(), 1);
        doc->undoStack()->undo();
        QVERIFY(!doc->graph().node(QStringLiteral("norm"))->params.contains(QStringLiteral("mean")));
        QVERIFY(!doc->graph().node(QStringLiteral("norm"))->params.contains(QStringLiteral("std")));
    }

    void cleanup()
    {
        panel.reset();
        doc.reset();
    }
};

TY_TEST_CLASS(TestDatasetPreview)

#include "test_dataset_preview.moc"
