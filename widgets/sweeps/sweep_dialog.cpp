#include "sweep_dialog.h"

#include "preset_overrides.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

#include <cmath>

namespace ty {

namespace {

enum Column { KeyColumn, KindColumn, ValuesColumn };

// Trials whose presets are checked as the user types (the driver checks all of them before it starts).
constexpr int kTrialsCheckedHere = 200;

QString number(double value) { return QString::number(value, 'g', 6); }

} // namespace

SweepDialog::SweepDialog(const Preset &preset, const QString &initialKey, QWidget *parent)
    : QDialog(parent), m_preset(preset), m_keys(flattenParams(preset).keys())
{
    setWindowTitle(tr("Sweep"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("Each trial is a run of this pipeline with the values below. A grid tries every value; a "
                                "distribution draws a value per trial."), this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    m_table = new QTableWidget(0, 3, this);
    m_table->setObjectName(QStringLiteral("sweepDimensions"));
    m_table->setHorizontalHeaderLabels({tr("Parameter"), tr("Search"), tr("Values (grid, choice) or low, high")});
    m_table->horizontalHeader()->setSectionResizeMode(ValuesColumn, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(KeyColumn, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setMinimumHeight(150);
    layout->addWidget(m_table);
    auto *rowButtons = new QHBoxLayout;
    auto *add = new QPushButton(tr("Add Parameter"), this);
    auto *remove = new QPushButton(tr("Remove"), this);
    rowButtons->addWidget(add);
    rowButtons->addWidget(remove);
    rowButtons->addStretch();
    layout->addLayout(rowButtons);
    connect(add, &QPushButton::clicked, this, [this] {
        const QString key = m_keys.value(0);
        addDimension(key, QStringLiteral("grid"), suggestion(key));
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (m_table->currentRow() >= 0)
            m_table->removeRow(m_table->currentRow());
        recheck();
    });

    auto *form = new QFormLayout;
    m_trials = new QSpinBox(this);
    m_trials->setRange(1, SweepSpec::kMaxTrials);
    m_trials->setValue(8);
    m_trials->setToolTip(tr("Random draws per grid point (a grid alone runs each point once)"));
    form->addRow(tr("Random draws:"), m_trials);
    m_parallel = new QSpinBox(this);
    m_parallel->setRange(1, 64);
    m_parallel->setValue(qBound(1, QThread::idealThreadCount(), 2));
    m_parallel->setToolTip(tr("Trials trained at once; the machine's threads are split among them"));
    form->addRow(tr("At once:"), m_parallel);
    m_metric = new QComboBox(this);
    m_metric->setEditable(true);
    m_metric->addItems({QStringLiteral("val/loss"), QStringLiteral("val/accuracy"), QStringLiteral("val/f1"),
                        QStringLiteral("val/rmse"), QStringLiteral("test/accuracy")});
    form->addRow(tr("Rank by:"), m_metric);
    m_goal = new QComboBox(this);
    m_goal->addItems({tr("From the metric"), tr("Maximize"), tr("Minimize")});
    form->addRow(tr("Goal:"), m_goal);
    m_earlyStop = new QComboBox(this);
    m_earlyStop->addItems(sweepEarlyStopNames());
    m_earlyStop->setToolTip(tr("median: stop a trial whose best value so far is worse than the median of the others at "
                               "that epoch; asha: keep the best third at epochs 1, 3, 9, ..."));
    form->addRow(tr("Early stopping:"), m_earlyStop);
    m_seed = new QSpinBox(this);
    m_seed->setRange(0, 1000000);
    form->addRow(tr("Seed:"), m_seed);
    layout->addLayout(form);

    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("sweepSummary"));
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Start Sweep"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(m_buttons);

    for (QSpinBox *spin : {m_trials, m_parallel, m_seed})
        connect(spin, &QSpinBox::valueChanged, this, &SweepDialog::recheck);
    for (QComboBox *combo : {m_goal, m_earlyStop})
        connect(combo, &QComboBox::currentIndexChanged, this, &SweepDialog::recheck);
    connect(m_metric, &QComboBox::currentTextChanged, this, &SweepDialog::recheck);

    if (!initialKey.isEmpty())
        addDimension(initialKey, QStringLiteral("grid"), suggestion(initialKey));
    recheck();
    resize(620, 520);
}

QStringList SweepDialog::kinds()
{
    return {QStringLiteral("grid"), QStringLiteral("uniform"), QStringLiteral("loguniform"), QStringLiteral("int"), QStringLiteral("choice")};
}

QString SweepDialog::suggestion(const QString &key) const
{
    const QString current = flattenParams(m_preset).value(key);
    bool isInt = false, isNumber = false;
    const qint64 whole = current.toLongLong(&isInt);
    const double value = current.toDouble(&isNumber);
    if (isInt && whole > 1)
        return QStringLiteral("%1, %2, %3").arg(whole / 2).arg(whole).arg(whole * 2);
    if (isNumber && !isInt && value > 0)
        return QStringLiteral("%1, %2, %3").arg(number(value / 10), number(value), number(value * 10));
    return current;
}

void SweepDialog::addDimension(const QString &key, const QString &kind, const QString &values)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    auto *keyBox = new QComboBox(m_table);
    keyBox->setEditable(true);
    keyBox->addItems(m_keys);
    keyBox->setCurrentText(key);
    auto *kindBox = new QComboBox(m_table);
    kindBox->addItems(kinds());
    kindBox->setCurrentText(kind);
    auto *valuesEdit = new QLineEdit(values, m_table);
    m_table->setCellWidget(row, KeyColumn, keyBox);
    m_table->setCellWidget(row, KindColumn, kindBox);
    m_table->setCellWidget(row, ValuesColumn, valuesEdit);
    connect(keyBox, &QComboBox::currentTextChanged, this, [this, valuesEdit](const QString &newKey) {
        valuesEdit->setText(suggestion(newKey));
        recheck();
    });
    connect(kindBox, &QComboBox::currentTextChanged, this, &SweepDialog::recheck);
    connect(valuesEdit, &QLineEdit::textChanged, this, &SweepDialog::recheck);
    m_table->setCurrentCell(row, KeyColumn);
    recheck();
}

void SweepDialog::setTrials(int trials) { m_trials->setValue(trials); }
void SweepDialog::setParallel(int parallel) { m_parallel->setValue(parallel); }
void SweepDialog::setMetric(const QString &metric) { m_metric->setCurrentText(metric); }
void SweepDialog::setEarlyStop(const QString &rule) { m_earlyStop->setCurrentText(rule); }

Result<SweepSpec> SweepDialog::buildSpec() const
{
    SweepSpec spec;
    spec.name = m_preset.name.isEmpty() ? QString() : m_preset.name + tr(" sweep");
    bool hasRandom = false;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QString key = static_cast<QComboBox *>(m_table->cellWidget(row, KeyColumn))->currentText().trimmed();
        const QString kind = static_cast<QComboBox *>(m_table->cellWidget(row, KindColumn))->currentText();
        const QString values = static_cast<QLineEdit *>(m_table->cellWidget(row, ValuesColumn))->text();
        const Result<SweepDimension> dim = kind == QLatin1String("grid")
                                               ? parseGridDimension(key + QLatin1Char('=') + values)
                                               : parseRandomDimension(QStringLiteral("%1=%2(%3)").arg(key, kind, values));
        if (!dim)
            return dim.error();
        (kind == QLatin1String("grid") ? spec.grid : spec.random).append(dim.value());
        hasRandom = hasRandom || kind != QLatin1String("grid");
    }
    spec.trials = hasRandom ? m_trials->value() : 1;
    spec.parallel = m_parallel->value();
    spec.metric = m_metric->currentText().trimmed();
    spec.goal = m_goal->currentIndex() == 1 ? QStringLiteral("maximize") : m_goal->currentIndex() == 2 ? QStringLiteral("minimize") : QString();
    spec.earlyStop = m_earlyStop->currentText();
    spec.seed = quint64(m_seed->value());
    return spec;
}

SweepSpec SweepDialog::spec() const
{
    const Result<SweepSpec> spec = buildSpec();
    return spec ? spec.value() : SweepSpec();
}

void SweepDialog::recheck()
{
    m_trials->setEnabled(false);
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (auto *kind = static_cast<QComboBox *>(m_table->cellWidget(row, KindColumn)); kind && kind->currentText() != QLatin1String("grid"))
            m_trials->setEnabled(true);
    m_problem.clear();
    m_trialCount = 0;
    const Result<SweepSpec> spec = buildSpec();
    const Result<QList<SweepTrial>> trials = spec ? expandSweep(spec.value()) : Result<QList<SweepTrial>>(spec.error());
    if (!trials) {
        m_problem = trials.error().toString();
    } else {
        for (const SweepTrial &trial : trials.value().mid(0, kTrialsCheckedHere)) {
            Preset copy = m_preset;
            if (Status applied = applyOverrides(&copy, trial.sets); !applied) {
                m_problem = tr("trial %1 (%2): %3").arg(trial.index).arg(sweepTrialName(trial), applied.error().toString());
                break;
            }
        }
        m_trialCount = int(trials.value().size());
    }
    if (m_problem.isEmpty())
        m_summary->setText(tr("%n trial(s), %1 at a time, ranked by %2.", nullptr, m_trialCount)
                               .arg(m_parallel->value())
                               .arg(spec.value().effectiveMetric() + (spec.value().maximize() ? tr(" (higher is better)") : tr(" (lower is better)"))));
    else
        m_summary->setText(QStringLiteral("<span style='color:#c0392b'>%1</span>").arg(m_problem.toHtmlEscaped()));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(m_problem.isEmpty());
}

} // namespace ty
