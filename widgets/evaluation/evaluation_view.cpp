#include "evaluation_view.h"

#include "class_scores_model.h"
#include "classifier_curves_view.h"
#include "confusion_matrix_view.h"
#include "probability_bars.h"
#include "split_samples.h"

#include "run_bundle_file.h"
#include "run_database.h"

#include <QComboBox>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QImageReader>
#include <QLabel>
#include <QListWidget>
#include <QMimeData>
#include <QProcess>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace ty {

namespace {

constexpr int kThumbnailSide = 84;

// Sorts the per-class rows by value, keeping the two average rows at the bottom.
class ClassScoresSorter : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override
    {
        const int averages = sourceModel()->rowCount() - 2;
        const bool leftAverage = left.row() >= averages, rightAverage = right.row() >= averages;
        if (leftAverage != rightAverage)
            return (sortOrder() == Qt::AscendingOrder) ? rightAverage : leftAverage;
        if (leftAverage)
            return (sortOrder() == Qt::AscendingOrder) == (left.row() < right.row());
        return QSortFilterProxyModel::lessThan(left, right);
    }
};

} // namespace

EvaluationView::EvaluationView(QWidget *parent) : QWidget(parent), m_loader(new SplitSamplesLoader(this))
{
    setAcceptDrops(true);
    buildUi();
    connect(m_loader, &SplitSamplesLoader::loaded, this, [this](std::shared_ptr<const SplitSamples> samples) {
        m_samples = std::move(samples);
        refreshGallery();
        Q_EMIT samplesReady();
    });
    connect(m_loader, &SplitSamplesLoader::failed, this, [this](const QString &message) {
        m_galleryTitle->setText(tr("The samples cannot be shown: %1").arg(message));
        Q_EMIT statusMessage(message);
    });
}

EvaluationView::~EvaluationView()
{
    if (m_predict && m_predict->state() != QProcess::NotRunning) {
        m_predict->kill();
        m_predict->waitForFinished(2000);
    }
}

void EvaluationView::buildUi()
{
    m_runChooser = new QComboBox(this);
    m_runChooser->setMinimumContentsLength(24);
    m_runChooser->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_compareChooser = new QComboBox(this);
    m_compareChooser->setMinimumContentsLength(24);
    m_compareChooser->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_summary = new QLabel(this);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);  // two lines rather than a window wider than the screen
    auto *header = new QHBoxLayout;
    header->addWidget(new QLabel(tr("Run"), this));
    header->addWidget(m_runChooser, 1);
    header->addWidget(new QLabel(tr("Compare with"), this));
    header->addWidget(m_compareChooser, 1);
    header->addWidget(m_summary, 2);

    m_confusion = new ConfusionMatrixView(this);
    m_scores = new ClassScoresModel(this);
    m_sorted = new ClassScoresSorter(this);
    m_sorted->setSourceModel(m_scores);
    m_sorted->setSortRole(Qt::UserRole);
    m_scoresView = new QTableView(this);
    m_scoresView->setModel(m_sorted);
    m_scoresView->setSortingEnabled(true);
    m_scoresView->sortByColumn(-1, Qt::AscendingOrder);
    m_scoresView->verticalHeader()->hide();
    m_scoresView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_scoresView->horizontalHeader()->setStretchLastSection(true);
    m_scoresView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_scoresView->setAlternatingRowColors(true);

    m_gallery = new QListWidget(this);
    m_gallery->setViewMode(QListView::IconMode);
    m_gallery->setIconSize(QSize(kThumbnailSide, kThumbnailSide));
    m_gallery->setResizeMode(QListView::Adjust);
    m_gallery->setMovement(QListView::Static);
    m_gallery->setUniformItemSizes(true);
    m_gallery->setWordWrap(true);
    m_galleryTitle = new QLabel(this);
    m_galleryTitle->setWordWrap(true);
    auto *samplesPage = new QWidget(this);
    auto *samplesLayout = new QVBoxLayout(samplesPage);
    samplesLayout->setContentsMargins(0, 4, 0, 0);
    samplesLayout->addWidget(m_galleryTitle);
    samplesLayout->addWidget(m_gallery, 1);

    m_tabs = new QTabWidget(this);
    m_tabs->addTab(samplesPage, tr("Samples"));
    m_tabs->addTab(m_scoresView, tr("Per class"));
    m_curves = new ClassifierCurvesView(this);
    m_tabs->addTab(m_curves, tr("Curves"));

    m_prediction = new ProbabilityBars(this);
    m_prediction->setMessage(tr("Drop images (PNG, JPEG, BMP), IDX files or CSV files here to classify them with this run's weights"));
    m_predictionArea = new QScrollArea(this);
    m_predictionArea->setWidget(m_prediction);
    m_predictionArea->setWidgetResizable(true);
    m_predictionArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_predictionArea->setFrameShape(QFrame::NoFrame);
    m_right = new QSplitter(Qt::Vertical, this);
    m_right->setChildrenCollapsible(false);
    m_right->addWidget(m_tabs);
    m_right->addWidget(m_predictionArea);
    m_right->setStretchFactor(0, 4);
    m_right->setStretchFactor(1, 1);

    auto *body = new QSplitter(Qt::Horizontal, this);
    body->addWidget(m_confusion);
    body->addWidget(m_right);
    body->setStretchFactor(0, 1);
    body->setStretchFactor(1, 1);
    body->setSizes({560, 440});

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(body, 1);

    connect(m_confusion, &ConfusionMatrixView::cellActivated, this, &EvaluationView::showCell);
    connect(m_runChooser, &QComboBox::activated, this, [this](int index) {
        if (const qint64 id = m_runChooser->itemData(index).toLongLong())
            showRun(id, m_compareRunId);
    });
    connect(m_compareChooser, &QComboBox::activated, this, [this](int index) {
        if (m_runId)
            showRun(m_runId, m_compareChooser->itemData(index).toLongLong());
    });
}

QString EvaluationView::runLabel(qint64 runId) const
{
    const QString id = RunDatabase::displayedRunId(runId);  // T7: a teammate's run in the Both view
    if (!m_db)
        return QStringLiteral("#%1").arg(id);
    const Result<RunInfo> run = m_db->run(runId);
    return run ? QStringLiteral("#%1 %2").arg(id, run.value().name) : QStringLiteral("#%1").arg(id);
}

void EvaluationView::setDatabase(RunDatabase *database)
{
    m_db = database;
    m_runId = m_evaluationId = m_compareRunId = 0;
    m_report = EvaluationReport();
    m_compare.reset();
    m_samples.reset();
    m_samplesKey.clear();
    m_confusion->setMatrix({}, {});
    refreshRuns();
}

void EvaluationView::refreshRuns()
{
    m_runChooser->clear();
    m_compareChooser->clear();
    m_compareChooser->addItem(tr("(none)"), qint64(0));
    if (!m_db)
        return;
    const Result<QList<QPair<qint64, qint64>>> runs = m_db->evaluatedRuns();
    if (!runs) {
        Q_EMIT statusMessage(runs.error().toString());
        return;
    }
    for (const auto &[run, evaluation] : runs.value()) {
        const QString label = runLabel(run);
        m_runChooser->addItem(label, run);
        m_compareChooser->addItem(label, run);
    }
    if (runs.value().isEmpty())
        m_runChooser->addItem(tr("No evaluated runs yet: a run is evaluated when it finishes"), qint64(0));
    m_runChooser->setCurrentIndex(std::max(0, m_runChooser->findData(m_runId)));
    m_compareChooser->setCurrentIndex(std::max(0, m_compareChooser->findData(m_compareRunId)));
}

Result<EvaluationReport> EvaluationView::readReport(qint64 evaluationId, qint64 *runId) const
{
    const Result<EvaluationRecord> record = m_db->evaluation(evaluationId);
    if (!record)
        return record.error();
    if (runId)
        *runId = record.value().runId;
    return evaluationFromJson(record.value().summary);
}

Status EvaluationView::showRun(qint64 runId, qint64 compareRunId)
{
    if (!m_db) {
        return Error(QStringLiteral("no run database is open"));
    }
    const Result<QList<EvaluationRecord>> evaluations = m_db->evaluations(runId);
    if (!evaluations)
        return evaluations.error();
    if (evaluations.value().isEmpty()) {
        Error e;
        e.message = QStringLiteral("run %1 has no evaluation yet (runs are evaluated when they finish; "
                                   "`trainyard-cli evaluate %1` evaluates any checkpoint)").arg(runId);
        Q_EMIT statusMessage(e.message);
        return e;
    }
    // The newest evaluation of the test split, else the newest of any split.
    qint64 chosen = evaluations.value().first().id;
    for (const EvaluationRecord &e : evaluations.value())
        if (e.split == QStringLiteral("test")) {
            chosen = e.id;
            break;
        }
    m_compare.reset();
    m_compareRunId = 0;
    if (compareRunId && compareRunId != runId) {
        const Result<QList<EvaluationRecord>> others = m_db->evaluations(compareRunId);
        if (others && !others.value().isEmpty()) {
            m_compare = evaluationFromJson(others.value().first().summary);
            m_compareRunId = compareRunId;
        }
    }
    return showEvaluation(chosen);
}

Status EvaluationView::showEvaluation(qint64 evaluationId)
{
    qint64 runId = 0;
    Result<EvaluationReport> report = readReport(evaluationId, &runId);
    if (!report)
        return report.error();
    m_report = std::move(report).value();
    m_evaluationId = evaluationId;
    const bool newRun = runId != m_runId;
    m_runId = runId;
    m_confusion->setMatrix(m_report.classification ? m_report.classes : QStringList(), m_report.confusion);
    m_scores->setReports(m_report, m_compare, m_compare ? QStringLiteral("#%1").arg(m_compareRunId) : QString());
    m_tabs->setTabEnabled(1, m_report.classification);
    m_tabs->setTabEnabled(2, m_report.classification);
    m_curves->setCurves(m_report.curves);
    QString summary = m_report.classification
        ? tr("%1 split at step %2 · %3 samples · accuracy %4 · top-%5 %6")
              .arg(m_report.split).arg(m_report.checkpointStep).arg(m_report.count)
              .arg(m_report.accuracy, 0, 'f', 4).arg(m_report.topK).arg(m_report.topKAccuracy, 0, 'f', 4)
        : tr("%1 split at step %2 · %3 samples · MAE %4 · RMSE %5 · R² %6")
              .arg(m_report.split).arg(m_report.checkpointStep).arg(m_report.count)
              .arg(m_report.mae, 0, 'g', 4).arg(m_report.rmse, 0, 'g', 4).arg(m_report.r2, 0, 'f', 4);
    if (m_report.curves.rocAuc)
        summary += tr(" · ROC AUC %1").arg(*m_report.curves.rocAuc, 0, 'f', 4);
    if (m_compare)
        summary += tr(" · #%1: accuracy %2").arg(RunDatabase::displayedRunId(m_compareRunId)).arg(m_compare->accuracy, 0, 'f', 4);
    m_summary->setText(summary);
    m_runChooser->setCurrentIndex(std::max(0, m_runChooser->findData(m_runId)));
    m_compareChooser->setCurrentIndex(std::max(0, m_compareChooser->findData(m_compareRunId)));
    if (newRun)
        m_prediction->setMessage(tr("Drop images (PNG, JPEG, BMP), IDX files or CSV files here to classify them with run #%1's weights")
                                     .arg(RunDatabase::displayedRunId(m_runId)));

    // The samples' data: loaded once per run and split, in the background.
    const QString key = QStringLiteral("%1/%2").arg(m_runId).arg(m_report.split);
    if (key != m_samplesKey) {
        m_samplesKey = key;
        m_samples.reset();
        const Result<RunInfo> run = m_db->run(m_runId);
        if (run)
            m_loader->load(run.value().preset, run.value().provenance.value(QStringLiteral("preset_file")).toString(), m_report.split);
    }
    showMistakes();
    return Status::success();
}

void EvaluationView::showCurves()
{
    if (m_tabs->isTabEnabled(2))
        m_tabs->setCurrentWidget(m_curves);
}

void EvaluationView::showMistakes()
{
    m_cell = QPoint(-1, -1);
    refreshGallery();
}

void EvaluationView::showCell(int trueClass, int predictedClass)
{
    m_cell = QPoint(predictedClass, trueClass);
    if (m_confusion->selectedCell() != m_cell)
        m_confusion->selectCell(trueClass, predictedClass);
    m_tabs->setCurrentIndex(0);
    refreshGallery();
}

void EvaluationView::refreshGallery()
{
    if (!m_db || !m_evaluationId)
        return;
    if (m_cell.x() < 0) {
        const QList<EvaluatedSample> worst = m_report.worst(kMaxThumbnails);
        m_galleryTitle->setText(m_report.classification
                                    ? tr("Most confident mistakes (%1 shown): true → predicted, confidence. Click a cell of the matrix for its samples.").arg(worst.size())
                                    : tr("Largest residuals (%1 shown): target → predicted").arg(worst.size()));
        fillGallery(worst, worst.size());
        return;
    }
    const int trueClass = m_cell.y(), predictedClass = m_cell.x();
    const Result<QList<EvaluationSampleRow>> rows = m_db->evaluationSamples(m_evaluationId, trueClass, predictedClass);
    if (!rows) {
        Q_EMIT statusMessage(rows.error().toString());
        return;
    }
    QList<EvaluatedSample> samples;
    for (const EvaluationSampleRow &r : rows.value())
        samples.append(EvaluatedSample{r.index, r.label, r.predicted, r.confidence});
    std::sort(samples.begin(), samples.end(), [](const EvaluatedSample &a, const EvaluatedSample &b) { return a.confidence > b.confidence; });
    m_galleryTitle->setText(tr("True %1, predicted %2: %3 samples%4, most confident first")
                                .arg(m_report.className(trueClass), m_report.className(predictedClass))
                                .arg(samples.size())
                                .arg(samples.size() > kMaxThumbnails ? tr(" (the first %1 shown)").arg(kMaxThumbnails) : QString()));
    const qint64 total = samples.size();
    fillGallery(samples.mid(0, kMaxThumbnails), total);
}

void EvaluationView::fillGallery(const QList<EvaluatedSample> &samples, qint64)
{
    m_gallery->clear();
    const bool images = m_samples && m_samples->isImage();
    m_gallery->setViewMode(images || !m_samples ? QListView::IconMode : QListView::ListMode);
    for (const EvaluatedSample &s : samples) {
        const QString caption = m_report.classification
            ? QStringLiteral("#%1 · %4%\n%2 →\n%3").arg(s.index).arg(m_report.className(s.label), m_report.className(s.predicted))
                  .arg(s.confidence * 100, 0, 'f', 1)
            : QStringLiteral("#%1: %2 → %3").arg(s.index).arg(s.label, 0, 'g', 4).arg(s.predicted, 0, 'g', 4);
        auto *item = new QListWidgetItem(caption, m_gallery);
        item->setData(Qt::UserRole, s.index);
        if (images) {
            const QImage image = m_samples->image(s.index);
            item->setIcon(QIcon(QPixmap::fromImage(image.scaled(kThumbnailSide, kThumbnailSide, Qt::KeepAspectRatio, Qt::FastTransformation))));
        } else if (m_samples) {
            item->setText(caption.simplified() + QStringLiteral("   ") + m_samples->rowText(s.index));
        }
        item->setToolTip(caption);
    }
    if (images)
        m_gallery->setGridSize(QSize(std::max(kThumbnailSide + 40, fontMetrics().horizontalAdvance(QStringLiteral("T-shirt/top →")) + 16),
                                     kThumbnailSide + 3 * fontMetrics().height() + 12));
    else
        m_gallery->setGridSize(QSize());
}

namespace {

// The dropped files to classify: local files, less run bundles (the window imports those).
QStringList filesToClassify(const QMimeData *mime)
{
    QStringList paths;
    for (const QUrl &url : mime->urls())
        if (url.isLocalFile() && !looksLikeRunBundle(url.toLocalFile()))
            paths << url.toLocalFile();
    return paths;
}

} // namespace

void EvaluationView::dragEnterEvent(QDragEnterEvent *event)
{
    if (m_runId && !filesToClassify(event->mimeData()).isEmpty())
        event->acceptProposedAction();
    else
        event->ignore();  // the window's, then: a run bundle is imported
}

void EvaluationView::dropEvent(QDropEvent *event)
{
    const QStringList paths = filesToClassify(event->mimeData());
    if (!paths.isEmpty()) {
        classifyFiles(paths);
        event->acceptProposedAction();
    }
}

QString EvaluationView::checkpointsElsewhere() const
{
    // A teammate's run (Team or Both view): the store has its checkpoint references, the files stay on its machine.
    const Result<QList<CheckpointRecord>> checkpoints = m_db->checkpoints(m_runId);
    if (!checkpoints)
        return checkpoints.error().toString();
    for (const CheckpointRecord &checkpoint : checkpoints.value())
        if (QFileInfo::exists(checkpoint.path))
            return QString();
    if (checkpoints.value().isEmpty() && !RunDatabase::isTeamCopyId(m_runId) && m_db->teamCopyPath().isEmpty())
        return QString();  // trainyard-cli predict says what is missing
    const Result<RunInfo> run = m_db->run(m_runId);
    const QString host = run ? run.value().host : QString();
    return tr("Cannot classify with run #%1: its checkpoint files are on the machine that trained it (%2), not here; the "
              "team store copies their references, not the files")
        .arg(RunDatabase::displayedRunId(m_runId), host.isEmpty() ? tr("unknown") : host);
}

void EvaluationView::classifyFiles(const QStringList &paths)
{
    const QString away = m_db && m_runId ? checkpointsElsewhere() : QString();
    if (!m_db || !m_runId || m_workerPath.isEmpty() || !away.isEmpty()) {
        m_prediction->setMessage(!away.isEmpty() ? away : tr("Choose an evaluated run first"));
        Q_EMIT predictionFinished();
        return;
    }
    if (m_predict && m_predict->state() != QProcess::NotRunning) {
        m_predict->disconnect(this);  // the answer to the files before is not wanted any more
        m_predict->kill();
        m_predict->waitForFinished(2000);
    }
    delete m_predict;
    m_predict = new QProcess(this);
    m_predict->setProperty("inputs", paths);
    connect(m_predict, &QProcess::finished, this, &EvaluationView::showPredictionOutput);
    connect(m_predict, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            m_prediction->setMessage(tr("Cannot start %1").arg(m_workerPath));
            Q_EMIT predictionFinished();
        }
    });
    m_prediction->setMessage(paths.size() == 1 ? tr("Classifying %1…").arg(QFileInfo(paths.first()).fileName())
                                            : tr("Classifying %1 files…").arg(paths.size()));
    // A teammate's run of the Both view is the copy's run under its store id.
    const bool copied = RunDatabase::isTeamCopyId(m_runId) && !m_db->teamCopyPath().isEmpty();
    const qint64 id = copied ? RunDatabase::storeIdOfCopy(m_runId) : m_runId;
    m_predict->start(m_workerPath, QStringList{QStringLiteral("predict"), QString::number(id)} + paths
                                       + QStringList{QStringLiteral("--top"), QString::number(kTopClasses), QStringLiteral("--json"),
                                                     QStringLiteral("--db"), copied ? m_db->teamCopyPath() : m_db->path()});
}

void EvaluationView::showPredictionOutput()
{
    const QByteArray out = m_predict->readAllStandardOutput();
    const QStringList paths = m_predict->property("inputs").toStringList();
    if (m_predict->exitCode() != 0 || m_predict->exitStatus() != QProcess::NormalExit) {
        const QString error = QString::fromUtf8(m_predict->readAllStandardError()).trimmed().section(QLatin1Char('\n'), 0, 0);
        const QString what = paths.size() == 1 ? QFileInfo(paths.first()).fileName() : tr("The %1 files").arg(paths.size());
        m_prediction->setMessage(tr("%1 cannot be classified: %2").arg(what, error.isEmpty() ? tr("the worker ended with code %1").arg(m_predict->exitCode()) : error));
        Q_EMIT predictionFinished();
        return;
    }
    QList<ClassifiedInput> inputs = classifiedInputsFromJsonLines(out);
    if (inputs.isEmpty()) {
        m_prediction->setMessage(tr("The worker classified nothing in %1").arg(paths.join(QStringLiteral(", "))));
        Q_EMIT predictionFinished();
        return;
    }
    const qsizetype total = inputs.size();
    inputs = inputs.mid(0, kMaxClassifiedShown);
    // An image's input is its file name: shown beside its bars.
    QHash<QString, QString> byName;
    for (const QString &path : paths)
        byName.insert(QFileInfo(path).fileName(), path);
    for (ClassifiedInput &input : inputs) {
        const QString path = byName.value(input.title);
        if (!path.isEmpty() && !QImageReader::imageFormat(path).isEmpty()) {
            QImageReader reader(path);
            const QSize most(ProbabilityBars::kThumbnailSide * 2, ProbabilityBars::kThumbnailSide * 2);
            const QSize size = reader.size();
            if (size.isValid() && (size.width() > most.width() || size.height() > most.height()))
                reader.setScaledSize(size.scaled(most, Qt::KeepAspectRatio));  // a large photo is read small
            input.thumbnail = reader.read();
        }
    }
    m_prediction->setInputs(inputs, total > inputs.size() ? tr("%1 more inputs not shown (trainyard-cli predict %2 … lists them all)")
                                                               .arg(total - inputs.size()).arg(m_runId)
                                                         : QString());
    makeRoomForPredictions();
    Q_EMIT predictionFinished();
}

void EvaluationView::makeRoomForPredictions()
{
    const QList<int> sizes = m_right->sizes();
    const int total = sizes.value(0) + sizes.value(1);
    if (total <= 0)
        return;
    const int wanted = m_prediction->heightForWidth(m_predictionArea->viewport()->width()) + 2;
    const int shown = std::clamp(wanted, sizes.value(1), std::max(sizes.value(1), total / 2));
    if (shown != sizes.value(1))
        m_right->setSizes({total - shown, shown});
}

} // namespace ty
