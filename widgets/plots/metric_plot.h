#pragma once
// A live chart of one or more metrics (e.g. train/loss and val/loss) across several runs: one colour per run,
// one line style per metric, a legend. The x axis is the step, the epoch (step / steps per epoch) or the time
// since the run started; y is linear or logarithmic. Smoothing draws the exponential moving average in full
// colour over the raw curve drawn faintly. Mouse: drag pans, the wheel zooms, a double click resets the view;
// smoothing applies to per-step (train/*) curves, per-epoch curves are drawn as they are, with markers;
// hovering shows the values of every shown curve at the nearest sample (a tracer line and a label, drawn on
// an overlay layer without replotting the data). A chart without curves says why in their place (no run, no
// sample yet, no metric node of that name in the runs' graphs). A run trained in stages shows a dashed vertical line in its
// colour, labelled with the stage's name, where each stage after the first begins (setStages).
//
// Every sample is kept (RunSeries, and every point in the graphs); drawing is reduced to a few points per pixel
// column from block summaries (SummarizedGraph), as QCustomPlot's adaptive sampling would. New samples are
// appended to the graphs' data containers at once (sorted appends, no per-point allocation), but the chart is
// replotted by a timer at about 25 Hz and only when something changed, never once per sample. Until the user
// zooms or pans, the view follows the data.
//
// Thread affinity: the GUI thread. Owns its QCustomPlot and all series.

#include "metric_series.h"

#include <QColor>
#include <QHash>
#include <QList>
#include <QMap>
#include <QStringList>
#include <QWidget>

#include <limits>

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCPLayoutGrid;
class QMouseEvent;
class QTimer;

namespace ty {

class MetricPlot : public QWidget {
    Q_OBJECT
public:
    static constexpr int kReplotIntervalMs = 40;  // 25 Hz

    explicit MetricPlot(QWidget *parent = nullptr);
    ~MetricPlot() override;

    // Runs. A run gets its own colour (style::runColor, by its id) unless one is given; appendPoints() adds
    // unknown runs with the label "#ID".
    void addRun(qint64 runId, const QString &label, const QColor &color = QColor());
    void removeRun(qint64 runId);
    void clearRunData(qint64 runId);  // keeps the run, drops its samples (before reloading it)
    void clear();
    QList<qint64> runIds() const;
    bool hasRun(qint64 runId) const { return m_runs.contains(runId); }
    QColor runColor(qint64 runId) const;
    // The run's own (RunMetricsFeed reads them from the database, TrainingPanel also from the worker's "started"
    // event); until given, estimated from the samples.
    void setStepsPerEpoch(qint64 runId, qint64 steps);

    // Samples of any metrics; those of the shown metrics reach the graphs at once, the chart at the next tick.
    void appendPoints(qint64 runId, const QList<MetricPoint> &rows);
    void appendSamples(qint64 runId, const QString &metric, const MetricSamples &samples);

    // The stages of a run (RunDatabase::stages): a labelled line where each stage after step 0 begins, at that
    // step on every x axis (the time axis places it at the time of the run's last sample of the step before).
    // Given again as stages begin; an empty list removes them.
    void setStages(qint64 runId, const QList<StageRecord> &stages);
    struct StageMark {
        QString name;
        qint64 step = 0;                      // steps taken before the stage began
        QCPItemStraightLine *line = nullptr;  // vertical, in the run's colour
        QCPItemText *label = nullptr;         // the stage's name, right of the line at the top
    };
    QList<StageMark> stageMarks(qint64 runId) const { return m_stageMarks.value(runId); }

    // Which metrics are drawn (each in its own line style).
    void setMetrics(const QStringList &metrics);
    QStringList metrics() const { return m_metrics; }
    QStringList knownMetrics() const;  // every metric name of every run, sorted

    void setXAxis(PlotXAxis axis);
    PlotXAxis xAxis() const { return m_xAxis; }
    void setSmoothing(double weight);  // 0 (off) .. 0.999
    double smoothing() const { return m_smoothing; }
    void setLogY(bool logarithmic);
    bool logY() const { return m_logY; }
    void setTitle(const QString &title);

    // Back to following the data (after zooming or panning).
    void resetView();
    bool followsData() const { return m_followData; }

    // Export: PNG (raster), SVG and PDF (vector); CSV holds every sample of the shown runs and metrics.
    bool savePng(const QString &path, int width = 0, int height = 0);
    bool saveSvg(const QString &path, int width = 0, int height = 0);
    bool savePdf(const QString &path, int width = 0, int height = 0);
    bool saveCsv(const QString &path, QString *error = nullptr) const;

    // The hover read-out for x (in axis coordinates): one line per shown curve, "" when nothing is near.
    QString readoutAt(double x) const;

    // For tests and benchmarks.
    QCustomPlot *customPlot() const { return m_plot; }
    int graphPointCount(qint64 runId, const QString &metric, bool smoothed = false) const;
    qint64 sampleCount(qint64 runId, const QString &metric) const;
    int replotCount() const { return m_replots; }
    bool replotPending() const;
    void replotNow();  // what the timer does

    // The hover read-out at a point of the chart (what a mouse move there does), and where its box is drawn,
    // in the chart's pixels (empty while hidden): always inside the axis rect.
    void showHoverAt(const QPoint &pos);
    QRectF hoverBoxRect() const;
    // The note a chart without curves shows in their place, saying why (metric_plot_empty.cpp); empty while curves
    // are shown. Updated at each replot.
    QString emptyText() const;
    // The chart's background, axis and text colours come from the palette (metric_plot_theme.cpp).
    QColor chartBackground() const { return m_background; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void changeEvent(QEvent *event) override;

Q_SIGNALS:
    void knownMetricsChanged(const QStringList &metrics);
    void readoutChanged(const QString &text);
    void replotted();

private:
    struct Curve {
        QCPGraph *raw = nullptr;
        QCPGraph *smooth = nullptr;  // null while smoothing is off
        EmaSmoother smoother;
        // The range of the raw values, kept as samples arrive, so following the data never scans them all (the
        // smoothed values are averages of raw ones and stay inside it).
        double minValue = std::numeric_limits<double>::infinity();
        double maxValue = -std::numeric_limits<double>::infinity();
        double minPositive = std::numeric_limits<double>::infinity();  // for a log axis
    };

    RunSeries *series(qint64 runId);
    void scheduleReplot();
    void syncLegendRow();
    void rebuildCurves();
    void rebuildRun(qint64 runId);
    // Appends samples[from..] to the curve's graphs (raw and smoothed), keyed for the current x axis.
    void fillCurve(qint64 runId, Curve &curve, const MetricSamples &samples, size_t from);
    void dropCurves(qint64 runId);
    QString curveKey(qint64 runId, const QString &metric) const;
    void styleCurve(qint64 runId, const QString &metric, Curve &curve);
    void applyScale();
    void followData();  // sets the axes' ranges to the data (from the kept ranges, in constant time)
    void userMovedView();
    double snapKey(double x) const;  // the key of the shown sample nearest to x; NaN when none
    void updateHover(QMouseEvent *event);
    void placeHoverBox(double pixelX);  // beside the tracer line, on the side with room, inside the axis rect
    void applyPalette();
    void hideHover();
    // The empty chart's note (metric_plot_empty.cpp)
    void createEmptyNote();
    QString emptyReason() const;
    void updateEmptyNote();
    // Stage marks (metric_plot_stages.cpp)
    void dropStageMarks(qint64 runId);
    void placeStageMarks();                            // at the keys of the current x axis; at each replot
    double stageKey(const RunSeries &run, qint64 step) const;  // NaN while unknown (time axis, no sample yet)

    QCustomPlot *m_plot;
    QTimer *m_replotTimer;
    QCPItemStraightLine *m_hoverLine = nullptr;
    QCPItemText *m_hoverLabel = nullptr;
    QCPItemText *m_emptyNote = nullptr;
    QColor m_background = Qt::white;
    QCPLayoutGrid *m_legendRow = nullptr;  // owned by the plot's layout while shown, else by us (destructor)
    QMap<qint64, RunSeries> m_runs;
    QHash<qint64, QColor> m_colors;
    QHash<QString, Curve> m_curves;  // by curveKey()
    QMap<qint64, QList<StageMark>> m_stageMarks;  // by run; owned by the plot
    QList<qint64> m_dirtyRuns;       // need a full rebuild at the next tick
    QStringList m_metrics;
    QStringList m_known;
    PlotXAxis m_xAxis = PlotXAxis::Step;
    double m_smoothing = 0.6;
    bool m_logY = false;
    bool m_followData = true;
    int m_replots = 0;
};

} // namespace ty
