// MainWindow: File ▸ Import ONNX Model…, the app's side of `trainyard-cli import` (core/export/onnx_import_files.h).
// Asks for the .onnx file and where to write the preset (MODEL.trainyard.json beside it is offered; its weights go
// beside the preset as NAME.weights.safetensors), imports on the GUI thread under a busy cursor (ResNet-18 takes
// about half a second), and opens the written preset, whose placeholder data node the issues list warns about. A
// model that does not import is shown in a message box naming the node and the op; nothing is written then.

#include "main_window.h"

#include "onnx_import_files.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
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

bool MainWindow::importOnnxModel(const QString &modelPath, const QString &presetPath)
{
    return maybeSave() && importOnnxAndOpen(modelPath, presetPath.isEmpty() ? onnxImportSuggestedPreset(modelPath) : presetPath);
}

bool MainWindow::importOnnxAndOpen(const QString &modelPath, const QString &presetPath)
{
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
    statusBar()->showMessage(tr("Imported %1: replace the placeholder data node 'data' with your data set (%2 parameters, %3 -> %4 "
                                "per sample, %5 s)")
                                 .arg(QFileInfo(modelPath).fileName(), QLocale(QLocale::English).toString(result.parameters),
                                      shapeText(result.inputShape), shapeText(result.outputShape),
                                      QString::number(written.value().seconds, 'f', 2)),
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
    QString preset = QFileDialog::getSaveFileName(this, tr("Write the imported preset as"), onnxImportSuggestedPreset(model),
                                                  tr("Trainyard presets (*.trainyard.json)"));
    if (preset.isEmpty())
        return;
    // The dialog asked before replacing the file chosen; a name given without the suffix, and the weights beside
    // the preset, are asked about here.
    QStringList replaced;
    if (!preset.endsWith(QStringLiteral(".json"))) {
        preset += QStringLiteral(".trainyard.json");
        if (QFileInfo::exists(preset))
            replaced << QFileInfo(preset).fileName();
    }
    if (QFileInfo::exists(onnxImportWeightsPath(preset)))
        replaced << QFileInfo(onnxImportWeightsPath(preset)).fileName();
    if (!replaced.isEmpty()
        && QMessageBox::question(this, tr("Replace existing files?"),
                                 tr("Replace the existing %1 with the imported model's?").arg(replaced.join(tr(" and "))))
               != QMessageBox::Yes)
        return;
    importOnnxAndOpen(model, preset);  // unsaved edits were dealt with above
}

} // namespace ty
