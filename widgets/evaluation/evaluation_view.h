#pragma once
// The Evaluate view: one run's evaluation from the run database (nothing is recomputed). The confusion matrix as
// a heat map (click a cell to list its samples), the per-class table (sortable), the one-vs-rest ROC and
// precision-recall curves, the samples of the chosen cell or the most confident mistakes as thumbnails (images)
// or rows (tables), and a second run to compare per-class scores with. Dropping images, IDX or CSV files on the
// view (one or several at once) classifies them with the run's weights in one worker process (`trainyard-cli
// predict`): every input's most probable classes as bars. A run bundle dropped there is left to the window, which
// imports it.
//
// Ownership and threads: the database connection is the caller's (in the app, the run database watcher's) and must
// outlive the view's use of it; the view owns its widgets, its data loader and its prediction process. GUI thread only.

#include "error.h"
#include "evaluation_report.h"

#include <QWidget>

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QListWidget;
class QProcess;
class QScrollArea;
class QSplitter;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace ty {

class ClassScoresModel;
class ClassifierCurvesView;
class ConfusionMatrixView;
class ProbabilityBars;
class RunDatabase;
class SplitSamplesLoader;
struct SplitSamples;

class EvaluationView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxThumbnails = 200;
    static constexpr int kMaxClassifiedShown = 100;  // inputs shown as bars; a note counts the rest
    static constexpr int kTopClasses = 5;

    explicit EvaluationView(QWidget *parent = nullptr);
    ~EvaluationView() override;

    void setDatabase(RunDatabase *database);  // nullptr: none; rereads the list of evaluated runs
    RunDatabase *database() const { return m_db; }
    void setWorkerPath(const QString &path) { m_workerPath = path; }  // trainyard-cli, for predictions
    // Rereads which runs have evaluations (the run choosers), keeping the runs shown.
    void refreshRuns();

    // Shows the newest evaluation of `runId` (and compares with the newest of `compareRunId` unless 0).
    Status showRun(qint64 runId, qint64 compareRunId = 0);
    Status showEvaluation(qint64 evaluationId);
    qint64 runId() const { return m_runId; }
    qint64 evaluationId() const { return m_evaluationId; }
    const EvaluationReport &report() const { return m_report; }

    // Lists the samples of one cell (true, predicted), or the most confident mistakes.
    void showCell(int trueClass, int predictedClass);
    void showMistakes();
    // Classifies files with the run's weights (one worker process); the answer shows as bars, an input each.
    void classifyFiles(const QStringList &paths);
    void classifyFile(const QString &path) { classifyFiles({path}); }
    bool samplesLoaded() const { return m_samples != nullptr; }

    ConfusionMatrixView *confusion() const { return m_confusion; }
    ClassScoresModel *scores() const { return m_scores; }
    QTableView *scoresView() const { return m_scoresView; }
    QListWidget *gallery() const { return m_gallery; }
    QLabel *galleryTitle() const { return m_galleryTitle; }
    ProbabilityBars *prediction() const { return m_prediction; }
    QScrollArea *predictionArea() const { return m_predictionArea; }
    ClassifierCurvesView *curves() const { return m_curves; }
    QTabWidget *tabs() const { return m_tabs; }
    void showCurves();  // brings the Curves tab forward
    QComboBox *runChooser() const { return m_runChooser; }
    QComboBox *compareChooser() const { return m_compareChooser; }
    QLabel *summary() const { return m_summary; }

Q_SIGNALS:
    void statusMessage(const QString &message);
    void samplesReady();       // the thumbnails' data arrived
    void predictionFinished(); // the bars show an answer or an error

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void buildUi();
    Result<EvaluationReport> readReport(qint64 evaluationId, qint64 *runId) const;
    void fillGallery(const QList<EvaluatedSample> &samples, qint64 total);
    void refreshGallery();
    void showPredictionOutput();
    // Why the run's weights cannot classify here (no checkpoint file of it on this machine: a teammate's run);
    // empty when they can.
    QString checkpointsElsewhere() const;
    void makeRoomForPredictions();  // the bars' part of the splitter grows to show them, up to about half
    QString runLabel(qint64 runId) const;

    RunDatabase *m_db = nullptr;
    QString m_workerPath;
    qint64 m_runId = 0, m_evaluationId = 0, m_compareRunId = 0;
    EvaluationReport m_report;
    std::optional<EvaluationReport> m_compare;
    std::shared_ptr<const SplitSamples> m_samples;
    QString m_samplesKey;  // run and split the samples are of
    QPoint m_cell{-1, -1}; // the listed cell (predicted, true), or (-1, -1) for the mistakes

    QComboBox *m_runChooser = nullptr, *m_compareChooser = nullptr;
    QLabel *m_summary = nullptr, *m_galleryTitle = nullptr;
    ConfusionMatrixView *m_confusion = nullptr;
    ClassScoresModel *m_scores = nullptr;
    QSortFilterProxyModel *m_sorted = nullptr;
    QTableView *m_scoresView = nullptr;
    QTabWidget *m_tabs = nullptr;
    ClassifierCurvesView *m_curves = nullptr;
    QListWidget *m_gallery = nullptr;
    ProbabilityBars *m_prediction = nullptr;
    QScrollArea *m_predictionArea = nullptr;
    QSplitter *m_right = nullptr;  // the tabs over the predictions
    SplitSamplesLoader *m_loader = nullptr;
    QProcess *m_predict = nullptr;
};

} // namespace ty
