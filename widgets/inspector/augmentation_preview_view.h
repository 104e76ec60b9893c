#pragma once
// The inspector's augmentation preview, on a transform node (issue 42): "Preview augmentation" shows 16 variants of
// one training sample through the transform blocks up to this node, drawn by the training code itself: the app
// does not load LibTorch, so a worker (`trainyard-cli augment --serve`, kept running by an AugmentationWorker that
// the inspector shares between its views) compiles the canvas's preset, loads its data set and runs the graph in
// training mode with the shown seed (core/engine/augmentation_preview.h). The worker keeps the data set and the
// compiled preset, so "Reroll" (a new seed) and another preview of the same preset cost one forward pass; warmUp()
// (which the inspector calls when it shows the view) has the worker start, load the data set and compile the preset
// before the button is pressed, so that the first preview costs the same. The GUI
// never waits: a preview asked for while one is drawn replaces it. A data set that cannot be loaded, or a preset
// that does not compile, shows the worker's message. Images (1 or 3 channels) are drawn with one grey or colour scale over the sample and its variants;
// other samples get a note.
//
// Ownership: owns its widgets; the worker is not owned (it may outlive the view). Thread affinity: the GUI thread.

#include <QImage>
#include <QPointer>
#include <QWidget>

#include <optional>

class QGridLayout;
class QJsonObject;
class QLabel;
class QPushButton;

namespace ty {

class AugmentationWorker;
class PipelineDocument;

class AugmentationPreviewView : public QWidget {
    Q_OBJECT
public:
    AugmentationPreviewView(PipelineDocument *document, const QString &nodeId, AugmentationWorker *worker, QWidget *parent = nullptr);

    void preview();  // "Preview augmentation": with the current seed
    // Starts the worker and has it load the data set and compile the canvas's preset now (AugmentationWorker::warmUp),
    // drawing nothing here: the first preview then waits only for its forward pass.
    void warmUp();
    void reroll();   // "Reroll": a new seed, then preview()
    quint64 seed() const { return m_seed; }
    void setSeed(quint64 seed) { m_seed = seed; }
    bool busy() const;

    QPushButton *previewButton() const { return m_previewButton; }
    QPushButton *rerollButton() const { return m_rerollButton; }
    QLabel *statusLabel() const { return m_status; }
    // The images shown: the sample first, then the variants (empty before a preview or after a failure).
    const QList<QImage> &images() const { return m_images; }

Q_SIGNALS:
    void finished(bool ok);

private:
    void replied(quint64 id, const QJsonObject &reply);
    void show(const QJsonObject &reply);
    void fail(const QString &message);
    void clearGrid();
    QJsonObject previewRequest() const;  // the canvas's preset, this node and the seed

    PipelineDocument *m_document;
    QString m_nodeId;
    QPointer<AugmentationWorker> m_worker;
    std::optional<quint64> m_request;  // the preview being drawn
    quint64 m_seed = 0;
    QPushButton *m_previewButton;
    QPushButton *m_rerollButton;
    QLabel *m_status;
    QGridLayout *m_grid;
    QList<QImage> m_images;
};

} // namespace ty
