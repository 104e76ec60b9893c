#include "start_page.h"

#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace ty {

namespace {

constexpr int kPathRole = Qt::UserRole + 1;

QLabel *heading(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    QFont font = label->font();
    font.setBold(true);
    font.setPointSizeF(font.pointSizeF() * 1.15);
    label->setFont(font);
    return label;
}

} // namespace

QList<PresetSummary> presetSummaries(const QString &dir)
{
    QList<PresetSummary> summaries;
    if (dir.isEmpty())
        return summaries;
    const QFileInfoList files =
        QDir(dir).entryInfoList({QStringLiteral("*.trainyard.json")}, QDir::Files | QDir::Readable, QDir::Name);
    for (const QFileInfo &file : files) {
        QFile in(file.absoluteFilePath());
        if (!in.open(QIODevice::ReadOnly))
            continue;
        const QJsonDocument json = QJsonDocument::fromJson(in.readAll());
        if (!json.isObject())
            continue;
        const QJsonObject preset = json.object();
        const QString name = preset.value(QStringLiteral("name")).toString();
        summaries.append({file.absoluteFilePath(), name.isEmpty() ? file.fileName() : name,
                          preset.value(QStringLiteral("description")).toString()});
    }
    return summaries;
}

StartPage::StartPage(const QStringList &recentFiles, const QString &presetsDir, QWidget *cover)
    : QWidget(cover), m_recent(new QListWidget(this)), m_presets(new QListWidget(this))
{
    setAutoFillBackground(true);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(48, 32, 48, 32);
    outer->setSpacing(12);

    auto *title = new QLabel(tr("Trainyard"), this);
    QFont titleFont = title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 2);
    titleFont.setBold(true);
    title->setFont(titleFont);
    outer->addWidget(title);
    outer->addWidget(new QLabel(tr("Start a pipeline, open one, or begin from a bundled preset."), this));

    auto *buttons = new QHBoxLayout;
    auto *newButton = new QPushButton(tr("New"), this);
    newButton->setToolTip(tr("An empty canvas: drag blocks from the palette onto it"));
    auto *openButton = new QPushButton(tr("Open…"), this);
    buttons->addWidget(newButton);
    buttons->addWidget(openButton);
    buttons->addStretch();
    outer->addLayout(buttons);
    connect(newButton, &QPushButton::clicked, this, &StartPage::newRequested);
    connect(openButton, &QPushButton::clicked, this, &StartPage::openRequested);

    auto *columns = new QHBoxLayout;
    columns->setSpacing(32);
    auto *presetColumn = new QVBoxLayout;
    presetColumn->addWidget(heading(tr("Presets"), this));
    for (const PresetSummary &preset : presetSummaries(presetsDir)) {
        auto *item = new QListWidgetItem(QStringLiteral("%1\n%2").arg(preset.name, preset.description), m_presets);
        item->setData(kPathRole, preset.path);
        item->setToolTip(preset.path);
    }
    m_presets->setWordWrap(true);
    m_presets->setSpacing(3);
    m_presets->setTextElideMode(Qt::ElideRight);
    presetColumn->addWidget(m_presets);
    columns->addLayout(presetColumn, 3);

    auto *recentColumn = new QVBoxLayout;
    recentColumn->addWidget(heading(tr("Recent"), this));
    for (const QString &path : recentFiles) {
        // The folder too: presets of the same name in two folders are told apart.
        const QFileInfo info(path);
        auto *item = new QListWidgetItem(QStringLiteral("%1 — %2").arg(info.fileName(), QDir::toNativeSeparators(info.path())), m_recent);
        item->setData(kPathRole, path);
        item->setToolTip(path);
    }
    if (recentFiles.isEmpty())
        recentColumn->addWidget(new QLabel(tr("No recent files yet."), this));
    m_recent->setVisible(!recentFiles.isEmpty());
    recentColumn->addWidget(m_recent);
    recentColumn->addStretch();
    columns->addLayout(recentColumn, 2);
    outer->addLayout(columns, 1);

    for (QListWidget *list : {m_presets, m_recent}) {
        list->setToolTip(tr("Click to open"));
        connect(list, &QListWidget::itemActivated, this, &StartPage::choose);
        connect(list, &QListWidget::itemClicked, this, &StartPage::choose);
    }
    cover->installEventFilter(this);
    setGeometry(cover->rect());
}

void StartPage::choose(QListWidgetItem *item)
{
    if (item)
        Q_EMIT fileChosen(item->data(kPathRole).toString());
}

bool StartPage::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == parent() && event->type() == QEvent::Resize)
        setGeometry(static_cast<QWidget *>(watched)->rect());
    return QWidget::eventFilter(watched, event);
}

} // namespace ty
