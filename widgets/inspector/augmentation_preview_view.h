#pragma once
// The inspector's augmentation preview, on a transform node (issue 42): "Preview augmentation" shows 16 variants of
// one training sample through the transform blocks up to this node, drawn by the training code itself: the app
// does not load LibTorch, so a worker (`trainyard-cli augment --json`, a QProcess) compiles the canvas's preset,
// loads its data set and runs the graph in training mode with the shown seed (core/engine/augmentation_preview.h).
// "Reroll" draws again with a new seed. The GUI never waits: the worker runs beside it, and a preview asked for while
// one runs replaces it. A data set that cannot be loaded, or a preset that does not compile, shows the worker's
// message. Images (1 or 3 channels) are drawn with one grey or colour scale over the sample and its variants;
// other samples get a note.
//
// Ownership: owns its widgets, its worker process and the snapshot file it reads. Thread affinity: the GUI thread.

#include <QImage>
#include <QPointer>
#include <QWidget>

#include <memory>
#include <vector>

class QGridLayout;
class QLabel;
class QProcess;
class QPushButton;
class QTemporaryDir;

namespace ty {

class PipelineDocument;

class AugmentationPreviewView : public QWidget {
    Q_OBJECT
public:
    AugmentationPreviewView(PipelineDocument *document, const QString &nodeId, const QString &workerPath, QWidget *parent = nullptr);
    ~AugmentationPreviewView() override;

    void preview();  // "Preview augmentation": with the current seed
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
    void workerEnded();
    void show(const QByteArray &json);
    void fail(const QString &message);
    void clearGrid();

    PipelineDocument *m_document;
    QString m_nodeId;
    QString m_workerPath;
    quint64 m_seed = 0;
    QPushButton *m_previewButton;
    QPushButton *m_rerollButton;
    QLabel *m_status;
    QGridLayout *m_grid;
    QList<QImage> m_images;
    QPointer<QProcess> m_process;
    std::unique_ptr<QTemporaryDir> m_snapshotDir;
};

} // namespace ty
