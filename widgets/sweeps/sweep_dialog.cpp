#include "sweep_dialog.h"

#include "common/canvas_style.h"
#include "sweep_parameter_list.h"
#include "sweepable_params.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScreen>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

namespace ty {

namespace {

// Trials whose presets are checked as the user types (the driver checks all of them before it starts).
constexpr int kTrialsCheckedHere = 200;

QString valuesHint(const QString &kind)
{
    return SweepDialog::kindTakesRange(kind) ? QObject::tr("lowest, highest") : QObject::tr("values to try, separated by commas");
}

QWidget *titled(const QString &title, QWidget *body, QWidget *below, QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(title, box));
    layout->addWidget(body, 1);
    layout->addWidget(below, 0, Qt::AlignLeft);
    return box;
}

} // namespace

SweepDialog::SweepDialog(const Preset &preset, const QString &initialKey, QWidget *parent)
    : QDialog(parent), m_preset(preset)
{
    setWindowTitle(tr("Sweep"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("Each trial is a run of this pipeline with the values on the right. A grid tries every "
                                "value; a distribution draws a value per trial."), this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setChildrenCollapsible(false);
    m_list = new SweepParameterList(preset, this);
    m_searchButton = new QPushButton(tr("Search ▸"), this);
    m_searchButton->setToolTip(tr("Search the selected parameter (or double-click it)"));
    splitter->addWidget(titled(tr("Numeric parameters, by node (double-click to search):"), m_list, m_searchButton, splitter));

    m_table = new QTableWidget(0, 3, this);
    m_table->setObjectName(QStringLiteral("sweepDimensions"));
    m_table->setHorizontalHeaderLabels({tr("Parameter"), tr("Search"), tr("Values")});
    m_table->horizontalHeader()->setSectionResizeMode(KeyColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(KindColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(ValuesColumn, QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    auto *remove = new QPushButton(tr("Remove"), this);
    remove->setToolTip(tr("Stop searching the selected row's parameter"));
    splitter->addWidget(titled(tr("Searched:"), m_table, remove, splitter));
    splitter->setStretchFactor(0, 4);
    splitter->setStretchFactor(1, 5);
    layout->addWidget(splitter, 1);

    connect(m_list, &SweepParameterList::parameterChosen, this, &SweepDialog::searchParameter);
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this] { m_searchButton->setEnabled(!m_list->currentKey().isEmpty()); });
    connect(m_searchButton, &QPushButton::clicked, this, [this] { searchParameter(m_list->currentKey()); });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (m_table->currentRow() >= 0)
            m_table->removeRow(m_table->currentRow());
        recheck();
    });

    // Two columns of settings: how many trials, then how they are judged.
    auto *settings = new QHBoxLayout;
    auto *counts = new QFormLayout;
    auto *judging = new QFormLayout;
    settings->addLayout(counts, 2);
    settings->addSpacing(24);
    settings->addLayout(judging, 3);
    m_trials = new QSpinBox(this);
    m_trials->setRange(1, SweepSpec::kMaxTrials);
    m_trials->setValue(8);
    m_trials->setToolTip(tr("Random draws per grid point (a grid alone runs each point once)"));
    counts->addRow(tr("Random draws:"), m_trials);
    m_parallel = new QSpinBox(this);
    m_parallel->setRange(1, 64);
    m_parallel->setValue(qBound(1, QThread::idealThreadCount(), 2));
    m_parallel->setToolTip(tr("Trials trained at once; the machine's threads are split among them"));
    counts->addRow(tr("At once:"), m_parallel);
    m_seed = new QSpinBox(this);
    m_seed->setRange(0, 1000000);
    m_seed->setToolTip(tr("Seed of the random draws, not of training (search training.seed for that)"));
    counts->addRow(tr("Seed:"), m_seed);
    m_metric = new QComboBox(this);
    m_metric->setEditable(true);
    m_metric->addItems({QStringLiteral("val/loss"), QStringLiteral("val/accuracy"), QStringLiteral("val/f1"),
                        QStringLiteral("val/rmse"), QStringLiteral("test/accuracy")});
    judging->addRow(tr("Rank by:"), m_metric);
    m_goal = new QComboBox(this);
    m_goal->addItems({tr("From the metric"), tr("Maximize"), tr("Minimize")});
    judging->addRow(tr("Goal:"), m_goal);
    m_earlyStop = new QComboBox(this);
    m_earlyStop->addItems(sweepEarlyStopNames());
    m_earlyStop->setToolTip(tr("median: stop a trial whose best value so far is worse than the median of the others at "
                               "that epoch; asha: keep the best third at epochs 1, 3, 9, ..."));
    judging->addRow(tr("Early stopping:"), m_earlyStop);
    layout->addLayout(settings);

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

    searchParameter(initialKey.isEmpty() ? defaultSweepKey(preset) : initialKey);
    // Room for the list and the rows side by side, within the screen.
    const QRect screen = (parent ? parent->screen() : QGuiApplication::primaryScreen())->availableGeometry();
    resize(qMin(980, screen.width() - 60), qMin(640, screen.height() - 60));
}

QStringList SweepDialog::kinds()
{
    return {QStringLiteral("grid"), QStringLiteral("uniform"), QStringLiteral("loguniform"), QStringLiteral("int"), QStringLiteral("choice")};
}

bool SweepDialog::kindTakesRange(const QString &kind)
{
    return kind != QLatin1String("grid") && kind != QLatin1String("choice");
}

void SweepDialog::searchParameter(const QString &key)
{
    if (key.isEmpty())
        return;
    const int row = int(searchedKeys().indexOf(key));
    if (row >= 0) {
        m_table->selectRow(row);
        valuesEdit(row)->setFocus();
        return;
    }
    addDimension(key, QStringLiteral("grid"), suggestion(key));
}

void SweepDialog::addDimension(const QString &key, const QString &kind, const QString &values)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    auto *keyItem = new QTableWidgetItem(key);
    keyItem->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    if (const SweepableParam *p = m_list->param(key))
        keyItem->setToolTip(QStringLiteral("%1 (now %2; allowed %3)").arg(p->spec.doc, p->current, allowedRangeText(p->spec)));
    auto *kindBox = new QComboBox(m_table);
    kindBox->addItems(kinds());
    kindBox->setCurrentText(kind);
    auto *valuesEdit = new QLineEdit(values, m_table);
    valuesEdit->setPlaceholderText(valuesHint(kind));
    m_table->setItem(row, KeyColumn, keyItem);
    m_table->setCellWidget(row, KindColumn, kindBox);
    m_table->setCellWidget(row, ValuesColumn, valuesEdit);
    connect(kindBox, &QComboBox::currentTextChanged, this, [this, valuesEdit](const QString &newKind) {
        valuesEdit->setPlaceholderText(valuesHint(newKind));
        // A list becomes its lowest and highest value for a range, and a range stays as it is for a list.
        valuesEdit->setText(valuesForKind(valuesEdit->text(), newKind));
        recheck();
    });
    connect(valuesEdit, &QLineEdit::textChanged, this, &SweepDialog::recheck);
    m_table->selectRow(row);
    m_list->selectKey(key);
    recheck();
}

QStringList SweepDialog::searchedKeys() const
{
    QStringList keys;
    for (int row = 0; row < m_table->rowCount(); ++row)
        keys << (m_table->item(row, KeyColumn) ? m_table->item(row, KeyColumn)->text() : QString());
    return keys;
}

QComboBox *SweepDialog::kindBox(int row) const { return qobject_cast<QComboBox *>(m_table->cellWidget(row, KindColumn)); }
QLineEdit *SweepDialog::valuesEdit(int row) const { return qobject_cast<QLineEdit *>(m_table->cellWidget(row, ValuesColumn)); }

void SweepDialog::setTrials(int trials) { m_trials->setValue(trials); }
void SweepDialog::setParallel(int parallel) { m_parallel->setValue(parallel); }
void SweepDialog::setMetric(const QString &metric) { m_metric->setCurrentText(metric); }
void SweepDialog::setEarlyStop(const QString &rule) { m_earlyStop->setCurrentText(rule); }

Result<SweepSpec> SweepDialog::buildSpec() const
{
    SweepSpec spec;
    spec.name = m_preset.name.isEmpty() ? QString() : m_preset.name + tr(" sweep");
    if (m_table->rowCount() == 0)
        return Error(tr("Choose a parameter to search: double-click one in the list on the left."));
    bool hasRandom = false;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const Result<SweepDimension> dim = dimensionAt(row);
        if (!dim)
            return dim.error();
        const bool grid = dim.value().kind == SweepDistribution::Grid;
        (grid ? spec.grid : spec.random).append(dim.value());
        hasRandom = hasRandom || !grid;
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
        if (QComboBox *kind = kindBox(row); kind && kind->currentText() != QLatin1String("grid"))
            m_trials->setEnabled(true);
    m_list->setSearchedKeys(searchedKeys());
    m_problem.clear();
    m_trialCount = 0;
    const Result<SweepSpec> spec = buildSpec();
    const Result<QList<SweepTrial>> trials = spec ? expandSweep(spec.value()) : Result<QList<SweepTrial>>(spec.error());
    if (!trials) {
        m_problem = trials.error().message;  // in words of its own: no "field 'x':" before it
    } else {
        for (const SweepTrial &trial : trials.value().mid(0, kTrialsCheckedHere))
            if (m_problem = trialProblem(trial); !m_problem.isEmpty())
                break;
        m_trialCount = int(trials.value().size());
    }
    if (m_problem.isEmpty())
        m_summary->setText(tr("%1, %2 at a time, ranked by %3.")
                               .arg(style::counted(m_trialCount, tr("trial"), tr("trials")))
                               .arg(m_parallel->value())
                               .arg(spec.value().effectiveMetric() + (spec.value().maximize() ? tr(" (higher is better)") : tr(" (lower is better)"))));
    else
        m_summary->setText(QStringLiteral("<span style='color:#c0392b'>%1</span>").arg(m_problem.toHtmlEscaped()));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(m_problem.isEmpty());
}

} // namespace ty
