#include "sweep_view.h"

#include "plots/plot_palette.h"
#include "plots/qcustomplot_include.h"
#include "preset_format.h"
#include "preset_overrides.h"
#include "run_database.h"
#include "runs/run_database_watcher.h"
#include "sweep_plots.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace ty {

namespace {

constexpr int kRecordRefreshTicks = 5;  // seconds

QCustomPlot *makePlot(QWidget *parent, const QString &name, const QString &title)
{
    auto *plot = new QCustomPlot(parent);
    plot->setObjectName(name);
    plot->setMinimumSize(220, 200);
    plot->plotLayout()->insertRow(0);
    auto *heading = new QCPTextElement(plot, title);
    plot->plotLayout()->addElement(0, 0, heading);
    return plot;
}

// A table cell that sorts by number when its text is one.
QTableWidgetItem *cell(const QString &text)
{
    auto *item = new QTableWidgetItem;
    bool number = false;
    const double value = text.toDouble(&number);
    if (number)
        item->setData(Qt::DisplayRole, value);
    else
        item->setText(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    return item;
}

} // namespace

SweepView::SweepView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Sweep:"), this));
    m_chooser = new QComboBox(this);
    m_chooser->setObjectName(QStringLiteral("sweepChooser"));
    m_chooser->setMinimumContentsLength(40);
    top->addWidget(m_chooser, 1);
    m_openBest = new QPushButton(tr("Open Best as Preset"), this);
    m_openBest->setToolTip(tr("The pipeline with the best trial's values, as a new document in Design"));
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setToolTip(tr("Stop the sweep: each running trial writes a checkpoint; Resume continues"));
    m_resume = new QPushButton(tr("Resume"), this);
    m_resume->setToolTip(tr("Continue a stopped, failed or interrupted sweep: queued and interrupted trials"));
    m_exportBundle = new QPushButton(tr("Export Bundle…"), this);
    m_exportBundle->setToolTip(tr("Write the sweep and all its trials (metric rows, evaluations, checkpoint files) into one run "
                                  "bundle (.tybundle) that File ▸ Import Runs… merges into another run database"));
    top->addWidget(m_openBest);
    top->addWidget(m_stop);
    top->addWidget(m_resume);
    top->addWidget(m_exportBundle);
    layout->addLayout(top);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("sweepSummary"));
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);  // a long name or many parameters wrap instead of widening the window
    layout->addWidget(m_summary);

    auto *split = new QSplitter(Qt::Vertical, this);
    auto *tableAndImportance = new QSplitter(Qt::Horizontal, split);
    m_table = new QTableWidget(tableAndImportance);
    m_table->setObjectName(QStringLiteral("sweepTrials"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSortingEnabled(true);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_importancePlot = makePlot(tableAndImportance, QStringLiteral("sweepImportance"), tr("Which parameters mattered"));
    m_importancePlot->setToolTip(tr("Permutation importance of each searched parameter in a random forest that predicts the metric "
                                    "from the finished trials' values: how much the forest's squared error grows when the parameter's "
                                    "values are shuffled between trials, over the metric's variance (near 0: it did not matter), "
                                    "± its spread over 8 forests; ρ is its Spearman rank correlation with the "
                                    "metric. Needs at least %1 finished trials.").arg(kMinImportanceTrials));
    tableAndImportance->setStretchFactor(0, 3);
    tableAndImportance->setStretchFactor(1, 2);
    auto *charts = new QSplitter(Qt::Horizontal, split);
    m_parallel = makePlot(charts, QStringLiteral("sweepParallel"), tr("Parameters and metric, a line per trial"));
    auto *scatterBox = new QWidget(charts);
    auto *scatterLayout = new QVBoxLayout(scatterBox);
    scatterLayout->setContentsMargins(0, 0, 0, 0);
    m_scatterKey = new QComboBox(scatterBox);
    m_scatterKey->setObjectName(QStringLiteral("sweepScatterKey"));
    scatterLayout->addWidget(m_scatterKey);
    m_scatter = makePlot(scatterBox, QStringLiteral("sweepScatter"), tr("Metric against a parameter"));
    scatterLayout->addWidget(m_scatter, 1);
    m_curves = makePlot(charts, QStringLiteral("sweepCurves"), tr("Each trial by epoch"));
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    layout->addWidget(split, 1);

    applyPalette();
    connect(m_chooser, &QComboBox::currentIndexChanged, this, [this] { reloadSweep(); });
    connect(m_scatterKey, &QComboBox::currentTextChanged, this, [this](const QString &key) {
        if (!key.isEmpty())
            drawMetricAgainstKey(m_scatter, m_sweep, m_rows, key);
    });
    connect(m_openBest, &QPushButton::clicked, this, [this] {
        const Result<Preset> preset = bestPreset();
        if (preset)
            Q_EMIT openPresetRequested(preset.value());
        else
            Q_EMIT statusMessage(preset.error().toString());
    });
    connect(m_stop, &QPushButton::clicked, this, [this] { Q_EMIT stopRequested(m_sweep.id); });
    connect(m_resume, &QPushButton::clicked, this, [this] { Q_EMIT resumeRequested(m_sweep.id); });
    connect(m_exportBundle, &QPushButton::clicked, this, [this] { Q_EMIT exportRequested(m_sweep.id); });
    updateButtons();
}

SweepView::~SweepView() = default;

void SweepView::setWatcher(RunDatabaseWatcher *watcher)
{
    if (m_watcher)
        m_watcher->disconnect(this);
    m_watcher = watcher;
    if (!watcher)
        return;
    connect(watcher, &RunDatabaseWatcher::connectionReplaced, this, [this] {
        m_sweep = SweepRecord();
        refresh();
    });
    // Reread (every trial's curve included) when the runs changed, or every few seconds for the sweep's own
    // record (its status and best run change without a run changing at the same moment).
    connect(watcher, &RunDatabaseWatcher::runsChanged, this, [this] {
        if (!followsLiveSweep())
            return;
        m_quietTicks = 0;
        refresh();
    });
    connect(watcher, &RunDatabaseWatcher::ticked, this, [this] {
        if (!followsLiveSweep() || ++m_quietTicks < kRecordRefreshTicks)
            return;
        m_quietTicks = 0;
        refresh();
    });
    m_sweep = SweepRecord();
    refresh();
}

RunDatabaseWatcher *SweepView::watcher() const { return m_watcher; }

RunDatabase *SweepView::database() const { return m_watcher ? m_watcher->database() : nullptr; }

bool SweepView::followsLiveSweep() const
{
    return database() && isVisible() && (m_sweep.status == QLatin1String("running") || !m_runningHere.isEmpty());
}

void SweepView::refresh()
{
    if (!database())
        return;
    Result<QList<SweepRecord>> sweeps = database()->listSweeps();
    if (!sweeps) {
        m_summary->setText(sweeps.error().toString().toHtmlEscaped());
        return;
    }
    const qint64 chosen = currentSweep();
    m_sweeps = sweeps.value();
    {
        const QSignalBlocker blocker(m_chooser);
        m_chooser->clear();
        for (const SweepRecord &sweep : m_sweeps)
            m_chooser->addItem(QStringLiteral("#%1  %2  (%3)").arg(sweep.id).arg(sweep.name, sweep.status), sweep.id);
        const int index = m_chooser->findData(chosen);
        m_chooser->setCurrentIndex(index >= 0 ? index : 0);
    }
    reloadSweep();
}

void SweepView::showSweep(qint64 id)
{
    int index = m_chooser->findData(id);
    if (index < 0) {
        refresh();
        index = m_chooser->findData(id);
    }
    if (index >= 0)
        m_chooser->setCurrentIndex(index);
}

qint64 SweepView::currentSweep() const { return m_chooser->currentData().toLongLong(); }

void SweepView::setRunningHere(const QList<qint64> &sweepIds)
{
    m_runningHere = sweepIds;
    updateButtons();
}

void SweepView::reloadSweep()
{
    m_rows.clear();
    m_sweep = SweepRecord();
    const qint64 id = currentSweep();
    for (const SweepRecord &sweep : m_sweeps)
        if (sweep.id == id)
            m_sweep = sweep;
    if (m_sweep.id != 0 && database()) {
        Result<QList<SweepTrialRow>> rows = sweepTrialRows(*database(), m_sweep);
        if (rows)
            m_rows = rows.value();
    }
    // The forests are grown again only when the sweep or its finished trials changed (a live sweep rereads often).
    QStringList finished{QString::number(m_sweep.id)};
    for (const SweepTrialRow &row : m_rows)
        if (row.status == QLatin1String("finished") && row.value)
            finished << QStringLiteral("%1=%2").arg(row.trial).arg(*row.value, 0, 'g', 17);
    if (finished != m_importanceOf) {
        m_importanceOf = finished;
        m_importance = m_sweep.id != 0 ? sweepImportance(m_sweep, m_rows) : SweepImportance();
    }
    fillTable();
    const QString key = m_scatterKey->currentText();
    {
        const QSignalBlocker blocker(m_scatterKey);
        m_scatterKey->clear();
        m_scatterKey->addItems(sweepKeys(m_rows));
        if (m_scatterKey->findText(key) >= 0)
            m_scatterKey->setCurrentText(key);
    }
    drawCharts();
    if (m_sweep.id == 0) {
        m_summary->setText(m_sweeps.isEmpty() ? tr("No sweeps in this run database yet: Training ▸ Sweep… starts one.") : QString());
    } else {
        const SweepTrialRow *best = !m_rows.isEmpty() && m_rows.first().value ? &m_rows.first() : nullptr;
        m_summary->setText(tr("<b>%1</b>: %2, %3 of %4 trials ended. Ranked by %5 (%6 is better)%7")
                               .arg(m_sweep.name.toHtmlEscaped(), m_sweep.status)
                               .arg(endedTrials(m_rows))
                               .arg(m_rows.size())
                               .arg(m_sweep.metric.toHtmlEscaped(), m_sweep.maximize ? tr("higher") : tr("lower"))
                               .arg(best ? tr("; best <b>%1</b> by trial %2 (run %3): %4")
                                               .arg(*best->value, 0, 'g', 4)
                                               .arg(best->trial)
                                               .arg(best->runId)
                                               .arg(best->sets.join(QLatin1Char(' ')).toHtmlEscaped())
                                         : QString()));
    }
    updateButtons();
}

void SweepView::drawCharts()
{
    drawParallelCoordinates(m_parallel, m_sweep, m_rows);
    drawMetricAgainstKey(m_scatter, m_sweep, m_rows, m_scatterKey->currentText());
    drawParameterImportance(m_importancePlot, m_importance);
    if (database())
        drawTrialCurves(m_curves, *database(), m_sweep, m_rows);
}

void SweepView::applyPalette()
{
    for (QCustomPlot *plot : {m_importancePlot, m_parallel, m_scatter, m_curves})
        applyChartPalette(plot, palette());
}

void SweepView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (m_curves && (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)) {
        applyPalette();
        // The parallel coordinates' labels and the notes take the charts' own palette as they are drawn, which
        // Qt hands down to them after this event: drawn again once it has.
        QTimer::singleShot(0, this, [this] { drawCharts(); });
    }
}

void SweepView::fillTable()
{
    const QStringList keys = sweepKeys(m_rows);
    m_table->setSortingEnabled(false);
    m_table->clear();
    m_table->setRowCount(int(m_rows.size()));
    m_table->setColumnCount(4 + int(keys.size()));
    m_table->setHorizontalHeaderLabels(QStringList{tr("Trial"), tr("Run"), tr("Status"), m_sweep.metric} + keys);
    QFont bold = m_table->font();
    bold.setBold(true);
    for (int r = 0; r < m_rows.size(); ++r) {
        const SweepTrialRow &row = m_rows.at(r);
        QList<QTableWidgetItem *> items{cell(QString::number(row.trial)), cell(row.runId ? QString::number(row.runId) : QString()),
                                        cell(row.status),
                                        cell(row.value ? QString::number(*row.value, 'g', 6) : QString())};
        for (const QString &key : keys)
            items.append(cell(sweepTrialValue(row.sets, key)));
        const bool isBest = row.runId != 0 && row.runId == m_sweep.bestRun;
        for (int c = 0; c < items.size(); ++c) {
            if (isBest) {
                items.at(c)->setFont(bold);
                items.at(c)->setBackground(QColor(0xff, 0xe9, 0xb8));
                items.at(c)->setForeground(QColor(0x20, 0x20, 0x20));
                items.at(c)->setToolTip(tr("The best trial"));
            }
            m_table->setItem(r, c, items.at(c));
        }
    }
    m_table->setSortingEnabled(true);
    m_table->resizeColumnsToContents();
}

void SweepView::updateButtons()
{
    const bool chosen = m_sweep.id != 0;
    m_openBest->setEnabled(chosen && m_sweep.bestRun != 0);
    m_stop->setEnabled(chosen && m_runningHere.contains(m_sweep.id));
    m_resume->setEnabled(chosen
                         && (m_sweep.status == QLatin1String("stopped") || m_sweep.status == QLatin1String("interrupted")
                             || m_sweep.status == QLatin1String("failed"))
                         && !m_runningHere.contains(m_sweep.id));
    // A running sweep is refused (its trials are still coming); an interrupted one, whose driver is gone, travels.
    m_exportBundle->setEnabled(chosen && m_sweep.status != QLatin1String("running") && !m_runningHere.contains(m_sweep.id));
}

Result<Preset> SweepView::bestPreset() const
{
    if (m_sweep.id == 0 || m_rows.isEmpty() || !m_rows.first().value)
        return Error(tr("the sweep has no trial with a value of its metric yet"));
    Result<Preset> base = presetFromJson(m_sweep.preset, m_sweep.presetFile);
    if (!base)
        return base.error();
    Preset preset = base.value();
    if (Status applied = applyOverrides(&preset, m_rows.first().sets); !applied)
        return applied.error();
    preset.name = tr("%1, best of sweep %2").arg(preset.name).arg(m_sweep.id);
    return preset;
}

} // namespace ty
