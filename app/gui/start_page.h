#pragma once
// The start page: what the window shows when it opens with nothing to open. New, Open…, the recent files,
// the bundled presets, each with its name and one-line description, so a first session starts from a
// working example in one click, and the model library (the presets in the presets folder's models/: standard
// networks in torchvision's layout, for your own data and weights). It covers the canvas (it is a child of it and follows its size) and goes
// away when a document is opened or started; shown again over a pipeline, Back to the Pipeline (or Esc) goes back
// to it unchanged. Thread affinity: the GUI thread.

#include <QList>
#include <QString>
#include <QWidget>

class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace ty {

struct PresetSummary {
    QString path;
    QString name;         // the preset's name field, else its file name
    QString description;  // the preset's description field (may be empty)
};

// The presets (*.trainyard.json) in `dir`, sorted by file name; files that are not readable JSON are left out.
QList<PresetSummary> presetSummaries(const QString &dir);
// The model library's folder inside the bundled presets' folder: `presetsDir`/models.
QString modelLibraryDir(const QString &presetsDir);

class StartPage : public QWidget {
    Q_OBJECT
public:
    // `cover`: the widget it lies over (the canvas).
    StartPage(const QStringList &recentFiles, const QString &presetsDir, QWidget *cover);

    QListWidget *presetList() const { return m_presets; }
    QListWidget *recentList() const { return m_recent; }
    QListWidget *modelList() const { return m_models; }
    // Shows Back to the Pipeline (and lets Esc go back): when there is a pipeline under the page.
    void setBackAvailable(bool available);
    bool backAvailable() const;

Q_SIGNALS:
    void newRequested();
    void openRequested();
    void fileChosen(const QString &path);
    void backRequested();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    void choose(QListWidgetItem *item);

    QListWidget *m_recent;
    QListWidget *m_presets;
    QListWidget *m_models;
    QPushButton *m_back;
};

} // namespace ty
