// MainWindow: the team store (docs/team.md). Training ▸ Team Store… sets its connection string, remembered without
// a password (one that holds a password is refused: ~/.pgpass, PGPASSFILE or a service file hold it); runs the
// app trains then replicate to it (TRAINYARD_TEAM in the workers' environment). The run browser's "This machine /
// Team / Both" choice switches Experiments between this machine's run database, the team's runs (a live copy of the
// store, TeamLiveMirror into a cache file, that the watcher reads like any run database) and both in one list (this
// machine's database with the copy attached), so the browser, plots, compare and the Evaluate view follow the
// team's runs, read only.

#include "main_window.h"

#include "pg_connection.h"
#include "runs/run_browser.h"
#include "team_live_mirror.h"
#include "training/training_panel.h"

#include <QComboBox>
#include <QCryptographicHash>
#include <QDir>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTimer>

namespace ty {

namespace {

const char *const kTeamSetting = "team/store";

// The environment's TRAINYARD_TEAM when the app started: what the workers get back when no store is set.
QByteArray startingTeamEnvironment()
{
    static const QByteArray value = qgetenv("TRAINYARD_TEAM");
    return value;
}

} // namespace

QString MainWindow::teamStore() const
{
    const QString stored = QSettings().value(QString::fromLatin1(kTeamSetting)).toString();
    return stored.isEmpty() ? QString::fromUtf8(startingTeamEnvironment()) : stored;
}

QString MainWindow::teamCachePath(const QString &conninfo)
{
    const Result<QString> name = redactedConninfo(conninfo);
    const QByteArray key = QCryptographicHash::hash((name ? name.value() : conninfo).toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/team");
    QDir().mkpath(folder);
    return folder + QStringLiteral("/") + QString::fromLatin1(key) + QStringLiteral(".sqlite");
}

Status MainWindow::setTeamStore(const QString &conninfo)
{
    const QString store = conninfo.trimmed();
    if (!store.isEmpty())
        if (const Result<QString> storable = storableConninfo(store, tr("team store")); !storable)
            return storable.error();
    if (runSource() != RunBrowser::RunSource::ThisMachine)
        (void)showRunSource(RunBrowser::RunSource::ThisMachine);
    QSettings().setValue(QString::fromLatin1(kTeamSetting), store);
    applyTeamStore();
    return Status::success();
}

void MainWindow::applyTeamStore()
{
    const QString store = teamStore();
    if (store.isEmpty())
        qunsetenv("TRAINYARD_TEAM");
    else
        qputenv("TRAINYARD_TEAM", store.toUtf8());  // the workers this window starts replicate their runs
    m_training->browser()->sourceChoice()->setVisible(!store.isEmpty());
}

bool MainWindow::showsTeamRuns() const
{
    return m_training->browser()->isTeamView();
}

RunBrowser::RunSource MainWindow::runSource() const
{
    return m_training->browser()->runSource();
}

Status MainWindow::showRunSource(RunBrowser::RunSource source)
{
    using Source = RunBrowser::RunSource;
    RunBrowser *browser = m_training->browser();
    const Source before = browser->runSource();
    if (source == before)
        return Status::success();
    if (source == Source::ThisMachine) {
        // From Team: this machine's database again; from Both: the same one without the copy.
        const QString local = before == Source::Both ? m_training->databasePath() : preferredRunDatabase();
        browser->setRunSource(Source::ThisMachine);
        const Status opened = openRunDatabase(local);
        m_teamMirror.reset();
        m_teamTimer->stop();
        m_teamLabel->hide();
        return opened;
    }
    const QString store = teamStore();
    if (store.isEmpty())
        return Error(tr("no team store: set one with Training ▸ Team Store…"));
    const QString cache = teamCachePath(store);
    std::unique_ptr<TeamLiveMirror> mirror;
    if (!m_teamMirror) {
        mirror = std::make_unique<TeamLiveMirror>();
        if (Status started = mirror->start(store, cache); !started.ok())
            return started;
    }
    const QString local = before == Source::ThisMachine ? m_training->databasePath() : preferredRunDatabase();
    const Status opened = source == Source::Team ? m_training->openDatabase(cache)
                                                 : m_training->openDatabase(local.isEmpty() ? preferredRunDatabase() : local, cache);
    if (!opened.ok())
        return opened;
    if (mirror)
        m_teamMirror = std::move(mirror);
    browser->setRunSource(source);
    m_teamLabel->show();
    updateTeamStatus();
    m_teamTimer->start();
    return Status::success();
}

void MainWindow::updateTeamStatus()
{
    if (!m_teamMirror)
        return;
    const TeamMirrorState state = m_teamMirror->state();
    QString text;
    if (!state.problem.isEmpty())
        text = tr("Team: %1").arg(state.problem);
    else if (state.syncs == 0)
        text = tr("Team: connecting to %1…").arg(m_teamMirror->storeName());
    else
        text = tr("Team: %n run(s), %1", nullptr, state.runs).arg(state.listening ? tr("live") : tr("every 5 s"));
    m_teamLabel->setText(text.length() > 90 ? text.left(88) + QStringLiteral("…") : text);
    m_teamLabel->setToolTip(tr("The team store %1\n%2").arg(m_teamMirror->storeName(), text));
}

void MainWindow::chooseTeamStore()
{
    bool ok = false;
    const QString store = QInputDialog::getText(
        this, tr("Team Store"),
        tr("A libpq connection string, e.g. postgresql://me@db.example.org/trainyard?sslmode=verify-full\n"
           "(empty: none). Passwords belong in ~/.pgpass, not here."),
        QLineEdit::Normal, teamStore(), &ok);
    if (!ok)
        return;
    if (const Status set = setTeamStore(store); !set.ok())
        showError(tr("Cannot use this team store"), set.error().toString());
}

void MainWindow::createTeamStore()
{
    m_teamLabel = new QLabel(this);
    m_teamLabel->setObjectName(QStringLiteral("team-status"));
    m_teamLabel->hide();
    statusBar()->addPermanentWidget(m_teamLabel);
    m_teamTimer = new QTimer(this);
    m_teamTimer->setInterval(1000);
    connect(m_teamTimer, &QTimer::timeout, this, &MainWindow::updateTeamStatus);
    QComboBox *source = m_training->browser()->sourceChoice();
    connect(source, &QComboBox::currentIndexChanged, this, [this, source](int index) {
        if (const Status shown = showRunSource(RunBrowser::RunSource(index)); !shown.ok()) {
            const QSignalBlocker quiet(source);
            source->setCurrentIndex(int(runSource()));
            showError(tr("Cannot show the team's runs"), shown.error().toString());
        }
    });
    (void)startingTeamEnvironment();
    applyTeamStore();
}

} // namespace ty
