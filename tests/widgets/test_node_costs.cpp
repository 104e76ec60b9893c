// The cost per node in the editor: each node's header shows its multiply-accumulates per sample (a composite's
// summed, the optimizer's the whole pipeline's), its tooltip the forward and training-step figures and the
// receptive field after a convolution or pooling, and the inspector lists the same for the selected node and the
// totals with nothing selected. The figures are those of tests/core's cost estimate test, worked out by hand there.

#include "test_suite.h"
#include "widget_test_support.h"

#include "canvas/node_item.h"
#include "canvas/pipeline_scene.h"
#include "document/pipeline_document.h"
#include "inspector/inspector_panel.h"

#include "required_data.h"

#include <QLabel>
#include <QTest>

using namespace ty;

namespace {

// The text of the inspector's labels, one a line.
QString labelsOf(const InspectorPanel &panel)
{
    QStringList texts;
    for (const QLabel *label : panel.findChildren<QLabel *>())
        if (label->isVisibleTo(&panel))
            texts << label->text();
    return texts.join(QLatin1Char('\n'));
}

} // namespace

class TestNodeCosts : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        if (!tytest::fashionMnistAvailable())
            TY_SKIP_WITHOUT_DATA("dataset-fashion-mnist is not installed");
    }

    void everyNodeShowsItsMacs()
    {
        tytest::Canvas canvas;
        QVERIFY(canvas.document->load(tytest::presetPath(QStringLiteral("fashion-mnist-cnn"))).ok());
        canvas.document->validateNow();
        // conv2: 14*14*64 outputs of 5*5*32 products = 10,035,200; a training step 3 x that x 128.
        NodeItem *conv2 = canvas.scene->nodeItem(QStringLiteral("conv2"));
        QCOMPARE(conv2->macsText(), QStringLiteral("10.0M MACs"));
        QVERIFY2(conv2->toolTip().contains(QStringLiteral("10,035,200 a sample forward, 3,853,516,800 a training step")),
                 qPrintable(conv2->toolTip()));
        QVERIFY2(conv2->toolTip().contains(QStringLiteral("Receptive field: 14x14, stride 2")), qPrintable(conv2->toolTip()));
        // A pool computes no MACs but has a field: (14 + 1*2, 2*2) after conv2.
        NodeItem *pool2 = canvas.scene->nodeItem(QStringLiteral("pool2"));
        QCOMPARE(pool2->macsText(), QString());
        QVERIFY2(pool2->toolTip().contains(QStringLiteral("Receptive field: 16x16, stride 4")), qPrintable(pool2->toolTip()));
        QVERIFY(!canvas.scene->nodeItem(QStringLiteral("relu2"))->toolTip().contains(QStringLiteral("Receptive field")));
        // The optimizer: the whole pipeline's 13,883,904.
        NodeItem *opt = canvas.scene->nodeItem(QStringLiteral("opt"));
        QCOMPARE(opt->macsText(), QStringLiteral("13.9M MACs"));
        QVERIFY2(opt->toolTip().contains(QStringLiteral("13,883,904 multiply-accumulates (MACs; 1 MAC = 2 FLOPs) a sample forward, "
                                                        "5,331,419,136 a training step (3 × forward × a batch of 128)")),
                 qPrintable(opt->toolTip()));
        // An edit updates them: conv2 with 32 channels does half the work.
        QCOMPARE(canvas.document->setParam(QStringLiteral("conv2"), QStringLiteral("out_channels"), 32), QString());
        canvas.document->validateNow();
        QCOMPARE(canvas.scene->nodeItem(QStringLiteral("conv2"))->macsText(), QStringLiteral("5.02M MACs"));
    }

    // The ResNet's stage2 (a composite): its three convolutions, 903,168 + 1,806,336 + 100,352 = 2,809,856, and
    // the field of its output, 24x24 with stride 4.
    void aCompositeSumsItsInnerNodes()
    {
        tytest::Canvas canvas;
        QVERIFY(canvas.document->load(tytest::presetPath(QStringLiteral("fashion-mnist-resnet"))).ok());
        canvas.document->validateNow();
        NodeItem *stage2 = canvas.scene->nodeItem(QStringLiteral("stage2"));
        QCOMPARE(stage2->macsText(), QStringLiteral("2.81M MACs"));
        QVERIFY2(stage2->toolTip().contains(QStringLiteral("2,809,856 a sample forward")), qPrintable(stage2->toolTip()));
        QVERIFY2(stage2->toolTip().contains(QStringLiteral("Receptive field: 24x24, stride 4")), qPrintable(stage2->toolTip()));
    }

    void theInspectorListsThem()
    {
        PipelineDocument document;
        QVERIFY(document.load(tytest::presetPath(QStringLiteral("fashion-mnist-cnn"))).ok());
        InspectorPanel panel(&document);
        panel.resize(340, 800);
        panel.show();
        document.validateNow();
        document.setSelectedNodes({QStringLiteral("pool2")});
        QCoreApplication::processEvents();
        QVERIFY2(labelsOf(panel).contains(QStringLiteral("0 MACs a sample, 0 a training step  ·  receptive field 16x16, stride 4")),
                 qPrintable(labelsOf(panel)));
        document.setSelectedNodes({QStringLiteral("fc1")});
        QCoreApplication::processEvents();
        QVERIFY2(labelsOf(panel).contains(QStringLiteral("3.21M MACs a sample, 1.23G a training step")), qPrintable(labelsOf(panel)));
        QVERIFY(!labelsOf(panel).contains(QStringLiteral("receptive field")));
        document.setSelectedNodes({});
        QCoreApplication::processEvents();
        QVERIFY2(labelsOf(panel).contains(QStringLiteral(" · 13.9M MACs a sample")), qPrintable(labelsOf(panel)));
    }
};

TY_TEST_CLASS(TestNodeCosts)

#include "test_node_costs.moc"
