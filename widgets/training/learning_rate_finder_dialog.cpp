#include "learning_rate_finder_dialog.h"

#include "plots/log_axis_ticker.h"
#include "plots/plot_palette.h"
#include "plots/qcustomplot_include.h"

#include <QDialogButtonBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ty {

namespace {

double numberOrNaN(const QJsonValue &value)
{
    return value.isDouble() ? value.toDouble() : std::numeric_limits<double>::quiet_NaN();
}

std::optional<double> suggestedRate(const QJsonObject &answer, const char *name)
{
    const QJsonValue lr = answer.value(QStringLiteral("suggestions")).toObject().value(QLatin1String(name)).toObject().value(QStringLiteral("lr"));
    return lr.isDouble() && lr.toDouble() > 0 ? std::optional<double>(lr.toDouble()) : std::nullopt;
}

QString rateText(double lr)
{
    return QString::number(lr, 'g', 3);
}

const QColor kValleyColour(46, 139, 87), kSteepestColour(214, 120, 20), kPickedColour(128, 60, 170);

} // namespace

std::optional<LrFindAnswer> lrFindAnswerFromJson(const QByteArray &json, QString *error)
{
    QJsonParseError parse;
    const QJsonObject object = QJsonDocument::fromJson(json, &parse).object();
    const QJsonArray curve = object.value(QStringLiteral("curve")).toArray();
    if (parse.error != QJsonParseError::NoError || curve.isEmpty()) {
        *error = parse.error != QJsonParseError::NoError ? QObject::tr("the worker's answer is not JSON: %1").arg(parse.errorString())
                                                         : QObject::tr("the worker's answer has no curve");
        return std::nullopt;
    }
    LrFindAnswer answer;
    answer.runId = object.value(QStringLiteral("id")).toInteger();
    answer.optimizerNode = object.value(QStringLiteral("optimizer")).toObject().value(QStringLiteral("node")).toString();
    for (const QJsonValue &v : curve) {
        const QJsonObject point = v.toObject();
        const double lr = numberOrNaN(point.value(QStringLiteral("lr")));
        if (!(lr > 0)) {
            *error = QObject::tr("the worker's curve has a point without a positive rate");
            return std::nullopt;
        }
        answer.lr.push_back(lr);
        answer.loss.push_back(numberOrNaN(point.value(QStringLiteral("loss"))));
        answer.smoothed.push_back(numberOrNaN(point.value(QStringLiteral("smoothed_loss"))));
    }
    answer.valley = suggestedRate(object, "valley");
    answer.steepest = suggestedRate(object, "steepest");
    answer.stoppedEarly = object.value(QStringLiteral("stopped_early")).toBool();
    answer.stopReason = object.value(QStringLiteral("stop_reason")).toString();
    answer.scheduleIgnored = object.value(QStringLiteral("schedule_ignored")).toString();
    return answer;
}

LearningRateFinderDialog::LearningRateFinderDialog(const QString &optimizerNode, double currentLr, QWidget *parent)
    : QDialog(parent), m_node(optimizerNode), m_currentLr(currentLr)
{
    setObjectName(QStringLiteral("learningRateFinder"));
    setWindowTitle(tr("Find Learning Rate — %1").arg(optimizerNode));
    m_status = new QLabel(tr("Training a fresh copy of the model while the learning rate grows from 1e-07 to 10…"), this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_plot = new QCustomPlot(this);
    m_plot->setObjectName(QStringLiteral("learningRatePlot"));
    m_plot->setMinimumSize(560, 320);
    m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->xAxis->setTicker(QSharedPointer<LogAxisTicker>::create());
    m_plot->xAxis->setLabel(tr("Learning rate (log scale)"));
    m_plot->yAxis->setLabel(tr("Training loss"));
    QFont legendFont = font();
    legendFont.setPointSizeF(legendFont.pointSizeF() * 0.85);
    m_plot->legend->setFont(legendFont);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    applyPalette();
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *event) {
        if (m_answer && event->button() == Qt::LeftButton)
            pickRate(m_plot->xAxis->pixelToCoord(event->position().x()));
    });

    m_useValley = new QPushButton(tr("Use valley"), this);
    m_useValley->setObjectName(QStringLiteral("useValley"));
    m_useSteepest = new QPushButton(tr("Use steepest"), this);
    m_useSteepest->setObjectName(QStringLiteral("useSteepest"));
    m_usePicked = new QPushButton(tr("Use picked"), this);
    m_usePicked->setObjectName(QStringLiteral("usePicked"));
    m_usePicked->setToolTip(tr("Click a point of the curve to pick its rate"));
    for (QPushButton *button : {m_useValley, m_useSteepest, m_usePicked}) {
        button->setEnabled(false);
        button->setAutoDefault(false);
    }
    connect(m_useValley, &QPushButton::clicked, this, [this] {
        if (m_answer && m_answer->valley)
            Q_EMIT rateChosen(m_node, *m_answer->valley);
    });
    connect(m_useSteepest, &QPushButton::clicked, this, [this] {
        if (m_answer && m_answer->steepest)
            Q_EMIT rateChosen(m_node, *m_answer->steepest);
    });
    connect(m_usePicked, &QPushButton::clicked, this, [this] {
        if (m_picked)
            Q_EMIT rateChosen(m_node, *m_picked);
    });
    m_close = new QPushButton(tr("Cancel"), this);
    m_close->setObjectName(QStringLiteral("closeFinder"));
    m_close->setAutoDefault(false);
    connect(m_close, &QPushButton::clicked, this, &QDialog::reject);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_useValley);
    buttons->addWidget(m_useSteepest);
    buttons->addWidget(m_usePicked);
    buttons->addStretch(1);
    buttons->addWidget(m_close);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addWidget(m_plot, 1);
    layout->addLayout(buttons);
}

LearningRateFinderDialog::~LearningRateFinderDialog()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        // Closed while testing: the worker stops (SIGTERM, recorded as stopped), else it is killed.
        m_process->disconnect(this);
        m_process->terminate();
        if (!m_process->waitForFinished(3000)) {
            m_process->kill();
            m_process->waitForFinished(1000);
        }
    }
}

void LearningRateFinderDialog::start(const QString &workerPath, const QStringList &arguments)
{
    if (m_process)
        return;
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::SeparateChannels);
    connect(m_process, &QProcess::readyReadStandardOutput, this, [this] { m_output += m_process->readAllStandardOutput(); });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        m_output += m_process->readAllStandardOutput();
        const QString err = QString::fromUtf8(m_process->readAllStandardError()).trimmed();
        m_process->deleteLater();
        m_process = nullptr;
        m_close->setText(tr("Close"));
        if (status == QProcess::NormalExit && code == 0)
            showAnswer(m_output);
        else
            showFailure(err.isEmpty() ? tr("the worker ended with exit code %1").arg(code) : err.section(QLatin1Char('\n'), -3));
    });
    connect(m_process, &QProcess::errorOccurred, this, [this, workerPath](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart && m_process) {
            m_process->deleteLater();
            m_process = nullptr;
            m_close->setText(tr("Close"));
            showFailure(tr("cannot start the worker %1").arg(workerPath));
        }
    });
    m_process->start(workerPath, arguments);
}

bool LearningRateFinderDialog::running() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

void LearningRateFinderDialog::showFailure(const QString &message)
{
    m_status->setText(tr("The learning-rate test failed: %1").arg(message));
}

bool LearningRateFinderDialog::showAnswer(const QByteArray &json)
{
    QString error;
    m_answer = lrFindAnswerFromJson(json, &error);
    if (!m_answer) {
        showFailure(error);
        return false;
    }
    m_close->setText(tr("Close"));
    QStringList lines;
    lines << tr("Run %1 (kind lrfind): %n step(s) from %2 to %3.", nullptr, int(m_answer->lr.size()))
                 .arg(m_answer->runId).arg(rateText(m_answer->lr.front()), rateText(m_answer->lr.back()));
    if (m_answer->stoppedEarly)
        lines << tr("Stopped early: %1.").arg(m_answer->stopReason);
    if (!m_answer->scheduleIgnored.isEmpty())
        lines << tr("The schedule “%1” was not applied during the test.").arg(m_answer->scheduleIgnored);
    lines << tr("Nothing is changed until you choose a rate below (or click the curve to pick one).");
    m_status->setText(lines.join(QLatin1Char(' ')));
    m_useValley->setEnabled(m_answer->valley.has_value());
    m_useValley->setText(m_answer->valley ? tr("Use valley %1").arg(rateText(*m_answer->valley)) : tr("No valley"));
    m_useSteepest->setEnabled(m_answer->steepest.has_value());
    m_useSteepest->setText(m_answer->steepest ? tr("Use steepest %1").arg(rateText(*m_answer->steepest)) : tr("No steepest descent"));
    m_picked.reset();
    m_usePicked->setEnabled(false);
    m_usePicked->setText(tr("Use picked"));
    drawAnswer();
    return true;
}

void LearningRateFinderDialog::changeEvent(QEvent *event)
{
    QDialog::changeEvent(event);
    if (m_plot && (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)) {
        applyPalette();
        m_plot->replot();
    }
}

void LearningRateFinderDialog::applyPalette()
{
    const QPalette pal = palette();
    applyPlotPalette(m_plot, {m_plot->xAxis, m_plot->yAxis}, pal, false);
    m_plot->legend->setBrush(withAlpha(pal.color(QPalette::Base), 0.85));
    m_plot->legend->setTextColor(pal.color(QPalette::Text));
}

void LearningRateFinderDialog::drawAnswer()
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    const LrFindAnswer &a = *m_answer;
    QVector<double> x(a.lr.begin(), a.lr.end()), loss(a.loss.begin(), a.loss.end()), smoothed(a.smoothed.begin(), a.smoothed.end());
    QCPGraph *raw = m_plot->addGraph();
    raw->setName(tr("loss"));
    raw->setPen(QPen(QColor(160, 160, 160), 1));
    raw->setData(x, loss, true);
    QCPGraph *smooth = m_plot->addGraph();
    smooth->setName(tr("smoothed loss"));
    smooth->setPen(QPen(QColor(31, 119, 180), 2));
    smooth->setData(x, smoothed, true);
    // The y range of the smoothed curve up to its minimum, plus a quarter above for the start of the rise: the
    // descent fills the plot, the run-away tail leaves it at the top.
    size_t lowest = 0;
    for (size_t i = 0; i < a.smoothed.size(); ++i)
        if (std::isfinite(a.smoothed[i]) && !(a.smoothed[lowest] <= a.smoothed[i]))
            lowest = i;
    double low = a.smoothed[lowest], high = low;
    for (size_t i = 0; i <= lowest; ++i)
        if (std::isfinite(a.smoothed[i]))
            high = std::max(high, a.smoothed[i]);
    if (!std::isfinite(low)) {
        low = 0;
        high = 1;
    }
    const double margin = std::max(1e-6, (high - low) * 0.08);
    m_plot->yAxis->setRange(low - margin, high + margin + (high - low) * 0.25);
    m_plot->xAxis->setRange(a.lr.front(), a.lr.back());
    if (m_currentLr > 0 && m_currentLr >= a.lr.front() && m_currentLr <= a.lr.back())
        markRate(tr("now %1").arg(rateText(m_currentLr)), m_currentLr, QColor(120, 120, 120));
    if (a.valley)
        markRate(tr("valley %1").arg(rateText(*a.valley)), *a.valley, kValleyColour);
    if (a.steepest)
        markRate(tr("steepest %1").arg(rateText(*a.steepest)), *a.steepest, kSteepestColour);
    if (m_picked)
        markRate(tr("picked %1").arg(rateText(*m_picked)), *m_picked, kPickedColour);
    m_plot->legend->setVisible(true);
    m_plot->replot();
}

void LearningRateFinderDialog::markRate(const QString &name, double lr, const QColor &colour)
{
    auto *line = new QCPItemStraightLine(m_plot);
    line->setObjectName(name);
    line->point1->setCoords(lr, 0);
    line->point2->setCoords(lr, 1);
    line->setPen(QPen(colour, 1.5, colour == QColor(120, 120, 120) ? Qt::DotLine : Qt::DashLine));
    auto *label = new QCPItemText(m_plot);
    label->setText(name);
    label->setColor(colour);
    label->setPositionAlignment(Qt::AlignBottom | Qt::AlignHCenter);
    label->position->setTypeX(QCPItemPosition::ptPlotCoords);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    // Labels of nearby lines stack at different heights.
    const int index = m_plot->itemCount() / 2 - 1;  // a line and a label per mark
    label->position->setCoords(lr, 0.08 + 0.07 * (index % 4));
}

void LearningRateFinderDialog::pickRate(double lr)
{
    if (!m_answer || !(lr > 0))
        return;
    size_t nearest = 0;
    for (size_t i = 1; i < m_answer->lr.size(); ++i)
        if (std::abs(std::log(m_answer->lr[i] / lr)) < std::abs(std::log(m_answer->lr[nearest] / lr)))
            nearest = i;
    m_picked = m_answer->lr[nearest];
    m_usePicked->setEnabled(true);
    m_usePicked->setText(tr("Use picked %1").arg(rateText(*m_picked)));
    drawAnswer();
}

} // namespace ty
