// MainWindow: File ▸ Open with Overlays…, the app's side of `--overlay` (core/presets/preset_overlay.h): a base
// preset merged with overlay files, opened as an unsaved document so the base file is never overwritten.

#include "main_window.h"

#include "default_preset.h"

#include "canvas/canvas_view.h"
#include "document/pipeline_document.h"
#include "preset_overlay.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QStatusBar>
#include <QTimer>

namespace ty {

bool MainWindow::openWithOverlays(const QString &base, const QStringList &overlays)
{
    if (!maybeSave())
        return false;
    Result<Preset> merged = loadPresetWithOverlays(base, overlays);
    if (!merged) {
        showError(tr("Cannot open the preset with its overlays"), merged.error().toString());
        return false;
    }
    Preset preset = merged.value();
    // Relative paths made absolute against the base preset's folder: the merged document has no file of its own,
    // so they would otherwise resolve against wherever the app was started.
    makePathsAbsolute(&preset);
    m_document->setUnsavedPreset(preset);
    m_document->validateNow();
    QTimer::singleShot(0, m_view, &CanvasView::fitAll);
    QStringList names;
    for (const QString &overlay : overlays)
        names << QFileInfo(overlay).fileName();
    statusBar()->showMessage(tr("Opened %1 merged with %2 (unsaved: Save asks where)")
                                 .arg(QFileInfo(base).fileName(), names.join(QStringLiteral(", "))),
                             10000);
    return true;
}

void MainWindow::openWithOverlaysInteractively()
{
    const QString dir = m_document->fileName().isEmpty() ? bundledPresetsDir() : QFileInfo(m_document->fileName()).path();
    const QString base = QFileDialog::getOpenFileName(this, tr("Open preset (the base)"), dir,
                                                      tr("Trainyard presets (*.trainyard.json);;JSON files (*.json)"));
    if (base.isEmpty())
        return;
    const QStringList overlays = QFileDialog::getOpenFileNames(this, tr("Overlays to merge over it, in order"),
                                                               QFileInfo(base).path(), tr("JSON files (*.json)"));
    if (!overlays.isEmpty())
        openWithOverlays(base, overlays);
}

} // namespace ty
