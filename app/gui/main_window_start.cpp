// The main window's start page (start_page.h): shown over the canvas until something is opened or started, and
// again from File ▸ Start Page; File ▸ Open Bundled Preset lists the bundled presets at any time, and its Models
// submenu the model library.

#include "main_window.h"

#include "default_preset.h"
#include "recent_files.h"
#include "start_page.h"

#include "canvas/canvas_view.h"
#include "document/pipeline_document.h"

#include <QAction>
#include <QMenu>

namespace ty {

StartPage *MainWindow::showStartPage()
{
    if (m_startPage)
        return m_startPage;
    m_startPage = new StartPage(m_recent->files(), bundledPresetsDir(), m_view);
    auto dismiss = [this] {
        if (m_startPage) {
            m_startPage->hide();
            m_startPage->deleteLater();
            m_startPage = nullptr;
        }
    };
    // Whatever puts a graph on the canvas ends the start page: opening a file, New, a block from the palette.
    connect(m_document, &PipelineDocument::documentReset, m_startPage, dismiss);
    connect(m_document, &PipelineDocument::nodeAdded, m_startPage, dismiss);
    connect(m_startPage, &StartPage::newRequested, this, [this, dismiss] {
        dismiss();
        newDocument();
    });
    connect(m_startPage, &StartPage::openRequested, this, &MainWindow::open);
    connect(m_startPage, &StartPage::fileChosen, this, &MainWindow::openFile);
    // Shown again over a pipeline (File ▸ Start Page): it can go back to it unchanged.
    m_startPage->setBackAvailable(!m_document->graph().nodes.isEmpty() || !m_document->fileName().isEmpty());
    connect(m_startPage, &StartPage::backRequested, this, dismiss);
    m_startPage->show();
    m_startPage->setFocus();
    m_startPage->raise();
    return m_startPage;
}

void MainWindow::addStartMenuEntries(QMenu *file)
{
    QAction *start = addAction(QStringLiteral("start-page"), tr("S&tart Page"), QString(), {});
    start->setToolTip(tr("New, Open, the recent files and the bundled presets"));
    connect(start, &QAction::triggered, this, [this] {
        setMode(WindowMode::Design);
        showStartPage();
    });
    file->addAction(start);
    QMenu *presets = file->addMenu(tr("Open &Bundled Preset"));
    presets->setObjectName(QStringLiteral("bundledPresetsMenu"));
    presets->setToolTipsVisible(true);
    for (const PresetSummary &preset : presetSummaries(bundledPresetsDir()))
        presets->addAction(preset.name, this, [this, path = preset.path] { openFile(path); })->setToolTip(preset.description);
    const QList<PresetSummary> models = presetSummaries(modelLibraryDir(bundledPresetsDir()));
    if (!models.isEmpty()) {
        QMenu *library = presets->addMenu(tr("&Models"));
        library->setObjectName(QStringLiteral("modelLibraryMenu"));
        library->setToolTipsVisible(true);
        for (const PresetSummary &model : models)
            library->addAction(model.name, this, [this, path = model.path] { openFile(path); })->setToolTip(model.description);
    }
    if (presets->isEmpty())
        presets->addAction(tr("No bundled presets found"))->setEnabled(false);
}

} // namespace ty
