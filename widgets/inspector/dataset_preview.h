#pragma once
// The inspector's look at real data, on request (loading can take seconds: an image folder's first decode):
// - DatasetPreview, on a dataset node: "Preview data" loads the node's data set (core/data, on a worker thread)
//   and shows its samples per class and split and its first training samples (thumbnails with their class, or
//   rows as text).
// - NormalizeFromData, on a transform.normalize node: "Compute from data" loads the pipeline's data set and sets
//   mean and std to the training split's per-channel statistics, as one undoable edit.
// Both widgets may be destroyed while their data loads (the inspector rebuilds its node page): the result is then
// dropped. GUI thread only.

#include "dataset_arrays.h"

#include <QWidget>

#include <functional>
#include <memory>

class QLabel;
class QPushButton;
class QTableWidget;

namespace ty {

class PipelineDocument;

class DatasetPreview : public QWidget {
    Q_OBJECT
public:
    DatasetPreview(PipelineDocument *document, const QString &nodeId, QWidget *parent = nullptr);
    ~DatasetPreview() override;

    void load();  // what the button does
    bool busy() const { return m_busy; }
    QPushButton *loadButton() const { return m_button; }
    QLabel *summaryLabel() const { return m_summary; }
    QTableWidget *countsTable() const { return m_counts; }
    int sampleCount() const { return m_sampleCount; }  // thumbnails or rows shown

Q_SIGNALS:
    void finished(bool ok);

private:
    void show(const LoadedDataset &data);

    PipelineDocument *m_document;
    QString m_nodeId;
    QPushButton *m_button;
    QLabel *m_summary;
    QTableWidget *m_counts;
    QWidget *m_samples;
    int m_sampleCount = 0;
    bool m_busy = false;
    std::shared_ptr<bool> m_alive = std::make_shared<bool>(true);
};

class NormalizeFromData : public QWidget {
    Q_OBJECT
public:
    NormalizeFromData(PipelineDocument *document, const QString &nodeId, QWidget *parent = nullptr);
    ~NormalizeFromData() override;

    void compute();  // what the button does
    bool busy() const { return m_busy; }
    QPushButton *computeButton() const { return m_button; }
    QLabel *statusLabel() const { return m_status; }

Q_SIGNALS:
    void finished(bool ok);

private:
    PipelineDocument *m_document;
    QString m_nodeId;
    QPushButton *m_button;
    QLabel *m_status;
    bool m_busy = false;
    std::shared_ptr<bool> m_alive = std::make_shared<bool>(true);
};

} // namespace ty
