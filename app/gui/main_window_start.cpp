// The main window's start page (start_page.h): shown over the canvas until something is opened or started.

#include "main_window.h"

#include "default_preset.h"
#include "recent_files.h"
#include "start_page.h"

#include "canvas/canvas_view.h"
#include "document/pipeline_document.h"

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
    m_startPage->show();
    m_startPage->raise();
    return m_startPage;
}

} // namespace ty
