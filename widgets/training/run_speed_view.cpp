#include "run_speed_view.h"

#include "common/canvas_style.h"
#include "common/run_colors.h"
#include "plots/plot_palette.h"
#include "plots/qcustomplot_include.h"
#include "run_database.h"
#include "runs/run_database_watcher.h"

#include <QDesktopServices>
#include <QDir>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace ty {

namespace {

constexpr int kRereadTicks = 2;  // seconds

// The phases' colours in the stacked bars: data, forward, backward, all-reduce, optimizer, logging.
QColor phaseColor(int index)
{
    static const QColor colors[] = {QColor(0x8c, 0x8c, 0x8c), QColor(0x3b, 0x7d, 0xd8), QColor(0xe0, 0x7b, 0x39),
                                    QColor(0x9b, 0x59, 0xb6), QColor(0x2e, 0xa0, 0x5a), QColor(0xc0, 0x39, 0x2b)};
    return colors[index % 6];
}

QStringList columns()
{
    QStringList header{QObject::tr("run"), QObject::tr("samples/s"), QObject::tr("step ms")};
    for (const QString &phase : speedPhases())
        header << QObject::tr("%1 ms").arg(phase == QLatin1String("allreduce") ? QStringLiteral("all-reduce") : phase);
    header << QObject::tr("peak MB") << QObject::tr("GPU peak MB") << QObject::tr("processes") << QObject::tr("reports");
    return header;
}

} // namespace

RunSpeedView::RunSpeedView(QWidget *parent) : QWidget(parent)
{
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_openFolder = new QPushButton(tr("Open Run Folder"), this);
    m_openFolder->setToolTip(tr("Show the run's folder: checkpoints, and the profiler's traces of training.profile_steps "
                                "(open them in ui.perfetto.dev or chrome://tracing)"));
    connect(m_openFolder, &QPushButton::clicked, this, [this] {
        const QString folder = currentFolder();
        if (!folder.isEmpty() && QDesktopServices::openUrl(QUrl::fromLocalFile(folder)))
            Q_EMIT statusMessage(tr("Opened %1").arg(folder));
        else if (!folder.isEmpty())
            Q_EMIT statusMessage(tr("No file manager opened %1").arg(folder));
    });
    auto *top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_openFolder);

    m_table = new QTableWidget(0, int(columns().size()), this);
    m_table->setObjectName(QStringLiteral("speedTable"));
    m_table->setHorizontalHeaderLabels(columns());
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    connect(m_table, &QTableWidget::currentCellChanged, this, [this] { m_openFolder->setEnabled(!currentFolder().isEmpty()); });

    m_rate = new QCustomPlot(this);
    m_rate->setObjectName(QStringLiteral("speedRatePlot"));
    m_rate->xAxis->setLabel(tr("step"));
    m_rate->yAxis->setLabel(tr("samples per second"));
    m_rate->legend->setVisible(true);
    m_rate->setMinimumHeight(180);
    m_phases = new QCustomPlot(this);
    m_phases->setObjectName(QStringLiteral("speedPhasePlot"));
    m_phases->yAxis->setLabel(tr("ms per step (median)"));
    m_phases->legend->setVisible(true);
    m_phases->setMinimumHeight(180);
    for (QCustomPlot *plot : {m_rate, m_phases})
        applyChartPalette(plot, palette());
    auto *plots = new QSplitter(Qt::Horizontal, this);
    plots->addWidget(m_rate);
    plots->addWidget(m_phases);
    plots->setStretchFactor(0, 3);
    plots->setStretchFactor(1, 2);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(plots);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 4);
    split->setSizes({150, 600});

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);

    refresh();
}

RunSpeedView::~RunSpeedView() = default;

void RunSpeedView::setWatcher(RunDatabaseWatcher *watcher)
{
    if (m_watcher)
        m_watcher->disconnect(this);
    m_watcher = watcher;
    if (!watcher)
        return;
    connect(watcher, &RunDatabaseWatcher::connectionReplaced, this, &RunSpeedView::refresh);
    connect(watcher, &RunDatabaseWatcher::ticked, this, [this] {
        if (++m_ticks < kRereadTicks || !isVisible() || m_watcher->generation() == m_readAt)
            return;
        m_ticks = 0;
        refresh();
    });
    refresh();
}

RunDatabaseWatcher *RunSpeedView::watcher() const { return m_watcher; }

RunDatabase *RunSpeedView::database() const { return m_watcher ? m_watcher->database() : nullptr; }

void RunSpeedView::setRuns(const QList<qint64> &runIds)
{
    m_runIds = runIds;
    refresh();
}

void RunSpeedView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refresh();
}

void RunSpeedView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (m_phases && (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)) {
        for (QCustomPlot *plot : {m_rate, m_phases}) {
            applyChartPalette(plot, palette());
            plot->replot();
        }
    }
}

QString RunSpeedView::currentFolder() const
{
    const int row = m_table->currentRow() >= 0 ? m_table->currentRow() : (m_shown.size() == 1 ? 0 : -1);
    return row >= 0 && row < m_shown.size() ? m_shown.at(row).folder : QString();
}

void RunSpeedView::refresh()
{
    m_shown.clear();
    m_readAt = m_watcher ? m_watcher->generation() : -1;
    QString problem;
    for (qint64 id : std::as_const(m_runIds)) {
        if (!database())
            break;
        const Result<RunInfo> run = database()->run(id);
        const Result<RunSpeed> speed = run ? runSpeed(*database(), id) : Result<RunSpeed>(run.error());
        if (!speed) {
            problem = speed.error().toString();
            continue;
        }
        Shown shown;
        shown.id = id;
        shown.name = run.value().name;
        shown.folder = run.value().folder;
        shown.processes = run.value().provenance.value(QStringLiteral("distributed")).toObject().value(QStringLiteral("world_size")).toInt(1);
        shown.traces = int(QDir(shown.folder).entryList({QStringLiteral("profile-steps-*.json")}, QDir::Files).size());
        shown.speed = speed.value();
        m_shown.append(shown);
    }
    int withReport = 0, traces = 0;
    for (const Shown &s : std::as_const(m_shown)) {
        withReport += s.speed.empty() ? 0 : 1;
        traces += s.traces;
    }
    m_summary->setText(!problem.isEmpty()          ? tr("Cannot read the speed report: %1").arg(problem)
                       : m_runIds.isEmpty()        ? tr("Select runs in the Runs tab to see how fast they trained.")
                       : withReport == 0           ? tr("The selected runs have no speed report (runs recorded before it existed, "
                                                        "or ended before the first log interval).")
                                                   : tr("Medians over each run's timed steps (the last step of every log interval). "
                                                        "%1 in these runs' folders.")
                                                         .arg(style::counted(traces, tr("profiler trace"), tr("profiler traces"))));
    fillTable();
    plotRate();
    plotPhases();
    m_openFolder->setEnabled(!currentFolder().isEmpty());
}

void RunSpeedView::fillTable()
{
    const int current = m_table->currentRow();
    m_table->setRowCount(int(m_shown.size()));
    for (int row = 0; row < m_shown.size(); ++row) {
        const Shown &s = m_shown.at(row);
        QStringList cells{QStringLiteral("#%1 %2").arg(RunDatabase::displayedRunId(s.id), s.name),
                          s.speed.empty() ? QStringLiteral("–") : QString::number(s.speed.samplesPerSecond, 'f', 0),
                          s.speed.empty() ? QStringLiteral("–") : QString::number(s.speed.stepMs, 'f', 2)};
        for (const QString &phase : speedPhases())
            cells << (s.speed.phaseMs.contains(phase) ? QString::number(s.speed.phaseMs.value(phase), 'f', 2) : QStringLiteral("–"));
        cells << (s.speed.empty() ? QStringLiteral("–") : QString::number(s.speed.peakRssMb, 'f', 0))
              << (s.speed.peakCudaMb < 0 ? QStringLiteral("–") : QString::number(s.speed.peakCudaMb, 'f', 0)) << QString::number(s.processes)
              << QString::number(s.speed.reports);
        for (int column = 0; column < cells.size(); ++column) {
            auto *item = new QTableWidgetItem(cells.at(column));
            if (column > 0)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (column == 0)
                item->setIcon(style::runColorIcon(s.id));
            m_table->setItem(row, column, item);
        }
    }
    if (current >= 0 && current < m_table->rowCount())
        m_table->setCurrentCell(current, 0);
}

void RunSpeedView::plotRate()
{
    m_rate->clearGraphs();
    for (const Shown &s : std::as_const(m_shown)) {
        if (s.speed.rate.isEmpty())
            continue;
        QCPGraph *graph = m_rate->addGraph();
        graph->setName(QStringLiteral("#%1").arg(RunDatabase::displayedRunId(s.id)));
        graph->setPen(QPen(style::runColor(s.id), 1.6));
        QVector<double> x, y;
        for (const MetricPoint &p : s.speed.rate) {
            x << double(p.step);
            y << p.value;
        }
        graph->setData(x, y, true);
    }
    m_rate->rescaleAxes();
    m_rate->legend->setVisible(m_rate->graphCount() > 0);  // no empty box
    if (m_rate->graphCount() > 0)
        m_rate->yAxis->setRangeLower(0);
    m_rate->replot();
}

void RunSpeedView::plotPhases()
{
    m_phases->clearPlottables();
    // One bar per run (left to right in the table's order), each phase a stacked part.
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    QList<QCPBars *> stack;
    for (int phase = 0; phase < speedPhases().size(); ++phase) {
        const QString name = speedPhases().at(phase);
        bool any = false;
        for (const Shown &s : std::as_const(m_shown))
            any = any || s.speed.phaseMs.contains(name);
        if (!any)
            continue;
        auto *bars = new QCPBars(m_phases->xAxis, m_phases->yAxis);
        bars->setName(name == QLatin1String("allreduce") ? QStringLiteral("all-reduce") : name);
        bars->setBrush(phaseColor(phase));
        bars->setPen(QPen(phaseColor(phase).darker(130)));
        bars->setWidth(0.6);
        if (!stack.isEmpty())
            bars->moveAbove(stack.last());
        QVector<double> x, y;
        for (int i = 0; i < m_shown.size(); ++i) {
            x << double(i + 1);
            y << m_shown.at(i).speed.phaseMs.value(name);
        }
        bars->setData(x, y);
        stack.append(bars);
    }
    for (int i = 0; i < m_shown.size(); ++i)
        ticker->addTick(double(i + 1), QStringLiteral("#%1").arg(RunDatabase::displayedRunId(m_shown.at(i).id)));
    m_phases->xAxis->setTicker(ticker);
    m_phases->xAxis->setRange(0.4, double(m_shown.size()) + 0.6);
    m_phases->yAxis->rescale();
    double top = 0;
    for (const Shown &s : std::as_const(m_shown)) {
        double sum = 0;
        for (double ms : s.speed.phaseMs)
            sum += ms;
        top = std::max(top, sum);
    }
    m_phases->yAxis->setRange(0, top > 0 ? top * 1.15 : 1);
    m_phases->legend->setVisible(m_phases->plottableCount() > 0);  // no empty box
    m_phases->replot();
}

} // namespace ty
