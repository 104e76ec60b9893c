// MainWindow: File ▸ Import ONNX Model…, the app's side of `trainyard-cli import` (core/export/onnx_import_files.h).
// Asks for the .onnx file and where to write the preset (MODEL.trainyard.json beside it is offered; its weights go
// beside the preset as NAME.weights.safetensors), imports on the GUI thread under a busy cursor (ResNet-18 takes
// about half a second), and opens the written preset, whose placeholder data node the issues list warns about. A
// model that does not import is shown in a message box naming the node and the op; nothing is written then.

#include "main_window.h"

#include "document/pipeline_document.h"
#include "onnx_import_files.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

namespace ty {

void MainWindow::createOnnxImportAction()
{
    QAction *import = addAction(QStringLiteral("import-onnx"), tr("Import ONNX &Model…"), QString(), {});
    import->setToolTip(tr("Turn an ONNX model (.onnx) into a preset of its graph with its weights beside it "
                          "(trainyard-cli import does the same), and open it"));
    connect(import, &QAction::triggered, this, &MainWindow::importOnnxInteractively);
}

bool MainWindow::importOnnxModel(const QString &modelPath, const QString &presetPathOrEmpty)
{
    const QString presetPath = presetPathOrEmpty.isEmpty() ? onnxImportSuggestedPreset(modelPath) : presetPathOrEmpty;
    if (!maybeSave())
        return false;
    statusBar()->showMessage(tr("Importing %1…").arg(QFileInfo(modelPath).fileName()));
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const Result<OnnxImportFiles> written = importOnnxToFiles(modelPath, presetPath);
    QApplication::restoreOverrideCursor();
    if (!written) {
        m_lastRefusal = written.error().toString();
        statusBar()->clearMessage();
        showError(tr("Cannot import the ONNX model"), tr("%1\n\nNothing was written.").arg(m_lastRefusal));
        return false;
    }
    if (!loadFile(presetPath))
        return false;
    const OnnxImport &result = written.value().import;
    statusBar()->showMessage(tr("Imported %1 in %2 s: %3 ONNX nodes, %4 network nodes, %5 parameters; %6 -> %7 per sample. "
                                "Node 'data' is a placeholder: replace it with your data set")
                                 .arg(QFileInfo(modelPath).fileName(), QString::number(written.value().seconds, 'f', 2))
                                 .arg(result.onnxNodes)
                                 .arg(result.topNodes)
                                 .arg(QLocale(QLocale::English).toString(result.parameters), onnxShapeText(result.inputShape),
                                      onnxShapeText(result.outputShape)),
                             20000);
    return true;
}

void MainWindow::importOnnxInteractively()
{
    if (!maybeSave())
        return;
    QSettings settings;
    const QString folder = settings.value(QStringLiteral("import/onnxFolder"), QDir::homePath()).toString();
    const QString model = QFileDialog::getOpenFileName(this, tr("Import an ONNX model"), folder, tr("ONNX models (*.onnx);;All files (*)"));
    if (model.isEmpty())
        return;
    settings.setValue(QStringLiteral("import/onnxFolder"), QFileInfo(model).path());
    // The dialog asks before replacing the preset; the weights file beside it is asked about here.
    const QString preset = QFileDialog::getSaveFileName(this, tr("Write the imported preset as"), onnxImportSuggestedPreset(model),
                                                        tr("Trainyard presets (*.trainyard.json)"));
    if (preset.isEmpty())
        return;
    const QString weights = onnxImportWeightsPath(preset);
    if (QFileInfo::exists(weights)
        && QMessageBox::question(this, tr("Replace the weights?"),
                                 tr("%1 exists. Replace it with the imported model's weights?").arg(QFileInfo(weights).fileName()))
               != QMessageBox::Yes)
        return;
    importOnnxModel(model, preset);
}

} // namespace ty
