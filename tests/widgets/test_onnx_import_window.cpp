// File ▸ Import ONNX Model… (app/gui/main_window_onnx.cpp, issue 39 point 2): the model imported into a preset and
// its weights beside it, opened in the editor, where the placeholder data node is a warning in the issues list; a
// model that does not import is refused naming its node and op, and nothing is written. The models are the fuzz
// corpus's (fuzz/make_corpus.py, python3-onnx), kept in the repository, so this needs no PyTorch.

#include "test_suite.h"
#include "widget_test_support.h"

#include "issues/issues_panel.h"
#include "main_window.h"

#include "document/pipeline_document.h"

#include <QAction>
#include <QFile>
#include <QJsonObject>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace ty;

namespace {

QString corpusModel(const QString &name)
{
    return QStringLiteral(TRAINYARD_SOURCE_DIR "/fuzz/corpus/fuzz_onnx_import/") + name;
}

// The issues list's rows that mention `text`, as "severity node message".
QStringList issueRowsWith(const IssuesPanel *issues, const QString &text)
{
    QStringList rows;
    for (int i = 0; i < issues->list()->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *item = issues->list()->topLevelItem(i);
        QStringList columns;
        for (int c = 0; c < item->columnCount(); ++c)
            columns << item->text(c);
        const QString row = columns.join(QLatin1Char(' '));
        if (row.contains(text))
            rows << row;
    }
    return rows;
}

} // namespace

class TestOnnxImportWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void theFileMenuHasTheImport()
    {
        MainWindow window;
        window.setInteractive(false);
        QAction *import = window.action(QStringLiteral("import-onnx"));
        QVERIFY(import);
        QMenu *file = window.menuBar()->actions().first()->menu();
        QVERIFY(file && file->actions().contains(import));
        QVERIFY(!import->toolTip().isEmpty());
    }

    void anImportedModelOpensWithItsPlaceholderAsAWarning()
    {
        QTemporaryDir dir;
        const QString model = dir.filePath(QStringLiteral("residual.onnx"));
        QVERIFY(QFile::copy(corpusModel(QStringLiteral("residual.onnx")), model));
        MainWindow window;
        window.setInteractive(false);
        window.resize(1280, 720);
        window.show();
        // Beside the model, under the name the dialog offers.
        QVERIFY2(window.importOnnxModel(model), qPrintable(window.lastRefusal()));
        const QString preset = dir.filePath(QStringLiteral("residual.trainyard.json"));
        QCOMPARE(window.document()->fileName(), preset);
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("residual.weights.safetensors"))));
        QVERIFY(!window.document()->isModified());
        // The model's layers, grouped by its module scopes ("/layer/layer.0/...": node layer_0, as the model library
        // names torchvision's modules), after the placeholder data node.
        const PipelineGraph &graph = window.document()->graph();
        QVERIFY2(graph.node(QStringLiteral("data")), qPrintable(tytest::dump(graph)));
        QVERIFY2(graph.node(QStringLiteral("layer_0")), qPrintable(tytest::dump(graph)));
        QVERIFY(!window.document()->preset().blocks.isEmpty());
        QCOMPARE(window.document()->preset().training.value(QStringLiteral("init_from")).toObject().value(QStringLiteral("file")).toString(),
                 QStringLiteral("residual.weights.safetensors"));
        // The placeholder is a warning on node 'data' (no error: the preset is runnable as it is).
        const QStringList placeholder = issueRowsWith(window.issues(), QStringLiteral("placeholder"));
        QCOMPARE(placeholder.size(), 1);
        QVERIFY2(placeholder.first().contains(QStringLiteral("warning")) && placeholder.first().contains(QStringLiteral("data"))
                     && placeholder.first().contains(QStringLiteral("residual.onnx")),
                 qPrintable(placeholder.first()));
        QVERIFY2(issueRowsWith(window.issues(), QStringLiteral("error")).isEmpty(), qPrintable(window.issues()->summary()));
        QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("placeholder")));
        // Importing again replaces both files (the dialogs asked), and the same preset opens.
        QVERIFY(window.importOnnxModel(model, preset));
        QCOMPARE(window.document()->fileName(), preset);
    }

    void aModelThatDoesNotImportIsRefusedNamingTheNodeAndOp()
    {
        QTemporaryDir dir;
        // The GELU model with its Sigmoid node renamed, op type and all, to an op with no import rule.
        QFile source(corpusModel(QStringLiteral("gelu.onnx")));
        QVERIFY(source.open(QIODevice::ReadOnly));
        QByteArray bytes = source.readAll();
        QVERIFY(bytes.contains("Sigmoid"));
        bytes.replace("Sigmoid", "Sigmoix");
        const QString model = dir.filePath(QStringLiteral("unknown_op.onnx"));
        QFile out(model);
        QVERIFY(out.open(QIODevice::WriteOnly) && out.write(bytes) == bytes.size());
        out.close();
        MainWindow window;
        window.setInteractive(false);
        QVERIFY(window.openFile(tytest::presetPath(QStringLiteral("fashion-mnist-mlp"))));
        const QString before = window.document()->fileName();
        const QString preset = dir.filePath(QStringLiteral("unknown.trainyard.json"));
        QVERIFY(!window.importOnnxModel(model, preset));
        QVERIFY2(window.lastRefusal().contains(QStringLiteral("'/Sigmoix'")) && window.lastRefusal().contains(QStringLiteral("op Sigmoix")),
                 qPrintable(window.lastRefusal()));
        QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("Nothing was written")));
        QVERIFY(!QFile::exists(preset));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("unknown.weights.safetensors"))));
        QCOMPARE(window.document()->fileName(), before);
    }
};

TY_TEST_CLASS(TestOnnxImportWindow)

#include "test_onnx_import_window.moc"
