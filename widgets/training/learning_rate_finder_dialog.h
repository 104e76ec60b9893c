#pragma once
// "Find learning rate…" of an optimizer node (the inspector's button): runs `trainyard-cli lrfind SNAPSHOT --json`
// in a worker process, as training does, then draws the loss against the learning rate (log axis) with the two
// suggestions marked (docs/training-ui.md#finding-a-learning-rate). Nothing changes until the user clicks
// "Use valley", "Use steepest" or, after clicking a point of the curve, "Use picked": then rateChosen() asks the
// window to set the optimizer's lr, one undoable edit.
//
// Ownership: a QDialog owned by its parent; its worker, if still running when it closes, is stopped. GUI thread.

#include <QDialog>
#include <QJsonObject>

#include <optional>
#include <vector>

class QCustomPlot;
class QLabel;
class QProcess;
class QPushButton;

namespace ty {

// The worker's answer (`lrfind --json`, docs/cli.md) as the dialog draws it.
struct LrFindAnswer {
    qint64 runId = 0;
    QString optimizerNode;
    std::vector<double> lr, loss, smoothed;  // one per step; NaN where the loss was not finite
    std::optional<double> valley, steepest;
    bool stoppedEarly = false;
    QString stopReason;
    QString scheduleIgnored;  // the node id of the preset's schedule, which the test did not apply
};
// Reads an answer; nullopt with `error` set when `json` is not one (no curve).
std::optional<LrFindAnswer> lrFindAnswerFromJson(const QByteArray &json, QString *error);

class LearningRateFinderDialog : public QDialog {
    Q_OBJECT
public:
    // `currentLr`: the node's lr now, drawn for comparison.
    LearningRateFinderDialog(const QString &optimizerNode, double currentLr, QWidget *parent = nullptr);
    ~LearningRateFinderDialog() override;

    // Starts `workerPath ARGUMENTS` (lrfind ... --json); its answer or failure shows when it ends.
    void start(const QString &workerPath, const QStringList &arguments);
    bool running() const;
    // Shows an answer (the worker's stdout); false, with the reason shown, when it is not one.
    bool showAnswer(const QByteArray &json);
    void showFailure(const QString &message);
    // Marks the curve's point nearest to `lr` (on the log axis) as the picked rate; the plot's click calls it.
    void pickRate(double lr);

    QCustomPlot *plot() const { return m_plot; }
    QPushButton *valleyButton() const { return m_useValley; }
    QPushButton *steepestButton() const { return m_useSteepest; }
    QPushButton *pickedButton() const { return m_usePicked; }
    QLabel *statusLabel() const { return m_status; }
    std::optional<double> pickedRate() const { return m_picked; }

Q_SIGNALS:
    // The user chose `lr` for `optimizerNode`'s lr.
    void rateChosen(const QString &optimizerNode, double lr);

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyPalette();  // the chart's frame and legend in the app's light or dark scheme
    void drawAnswer();
    void markRate(const QString &name, double lr, const QColor &colour);

    QString m_node;
    double m_currentLr = 0;
    QProcess *m_process = nullptr;
    QByteArray m_output;
    std::optional<LrFindAnswer> m_answer;
    std::optional<double> m_picked;
    QLabel *m_status;
    QCustomPlot *m_plot = nullptr;
    QPushButton *m_useValley, *m_useSteepest, *m_usePicked, *m_close;
};

} // namespace ty
