#include "start_page.h"

#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPushButton>
#include <QStyledItemDelegate>
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
    label->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);  // the lists below take the height
    return label;
}

// An entry as a title in bold over up to three lines of muted text: the item's text is "title\ndetails".
class TitledItemDelegate : public QStyledItemDelegate {
public:
    explicit TitledItemDelegate(QListWidget *list) : QStyledItemDelegate(list), m_list(list) {}

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QStyleOptionViewItem panel = option;
        initStyleOption(&panel, index);
        panel.text.clear();
        option.widget->style()->drawControl(QStyle::CE_ItemViewItem, &panel, painter, option.widget);
        const auto [title, details] = parts(index);
        const QRect area = option.rect.adjusted(kPadding, kPadding, -kPadding, -kPadding);
        const bool selected = option.state & QStyle::State_Selected;
        const QPalette &palette = option.palette;
        painter->save();
        painter->setFont(titleFont(option.font));
        painter->setPen(palette.color(selected ? QPalette::HighlightedText : QPalette::Text));
        const int titleHeight = QFontMetrics(painter->font()).height();
        painter->drawText(QRect(area.topLeft(), QSize(area.width(), titleHeight)), Qt::AlignLeft | Qt::AlignVCenter,
                          QFontMetrics(painter->font()).elidedText(title, Qt::ElideRight, area.width()));
        painter->setFont(option.font);
        QColor muted = palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
        muted.setAlphaF(selected ? 0.85 : 0.7);
        painter->setPen(muted);
        painter->drawText(area.adjusted(0, titleHeight + 2, 0, 0), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                          details);
        painter->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        const auto [title, details] = parts(index);
        const int width = std::max(120, m_list->viewport()->width() - 2 * kPadding - 2 * m_list->spacing());
        const QFontMetrics metrics(option.font);
        int detailsHeight = 0;
        if (!details.isEmpty())
            detailsHeight = std::min(metrics.boundingRect(QRect(0, 0, width, 10000), Qt::TextWordWrap, details).height(),
                                     kMaxDetailLines * metrics.lineSpacing()) + 2;
        return QSize(width, QFontMetrics(titleFont(option.font)).height() + detailsHeight + 2 * kPadding);
    }

private:
    static constexpr int kPadding = 6;
    static constexpr int kMaxDetailLines = 3;

    static QFont titleFont(QFont font)
    {
        font.setBold(true);
        return font;
    }
    static std::pair<QString, QString> parts(const QModelIndex &index)
    {
        const QString text = index.data(Qt::DisplayRole).toString();
        const qsizetype newline = text.indexOf(QLatin1Char('\n'));
        return newline < 0 ? std::pair{text, QString()} : std::pair{text.left(newline), text.mid(newline + 1)};
    }

    QListWidget *m_list;
};

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

QString modelLibraryDir(const QString &presetsDir)
{
    return presetsDir.isEmpty() ? QString() : QDir(presetsDir).filePath(QStringLiteral("models"));
}

StartPage::StartPage(const QStringList &recentFiles, const QString &presetsDir, QWidget *cover)
    : QWidget(cover), m_recent(new QListWidget(this)), m_presets(new QListWidget(this)), m_models(new QListWidget(this)), m_back(new QPushButton(tr("Back to the Pipeline"), this))
{
    setAutoFillBackground(true);
    setFocusPolicy(Qt::StrongFocus);  // Esc goes back to the pipeline
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
    m_back->setToolTip(tr("Close this page and go back to the pipeline as it was (Esc)"));
    m_back->hide();
    buttons->addWidget(m_back);
    outer->addLayout(buttons);
    connect(m_back, &QPushButton::clicked, this, &StartPage::backRequested);
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

    presetColumn->addWidget(m_presets);
    columns->addLayout(presetColumn, 3);


    // The model library above the recent files: its entries give the description's first sentence.
    auto *recentColumn = new QVBoxLayout;
    QLabel *modelsHeading = heading(tr("Models"), this);
    modelsHeading->setToolTip(tr("Standard networks in torchvision's layout: replace the data node with your images, set "
                                 "num_classes, load torchvision weights with map \"torchvision\""));
    recentColumn->addWidget(modelsHeading);
    for (const PresetSummary &model : presetSummaries(modelLibraryDir(presetsDir))) {
        const QString firstSentence = model.description.section(QStringLiteral(". "), 0, 0);
        auto *item = new QListWidgetItem(QStringLiteral("%1\n%2").arg(model.name, firstSentence), m_models);
        item->setData(kPathRole, model.path);
        item->setToolTip(model.path);
    }
    m_models->setVisible(m_models->count() > 0);
    modelsHeading->setVisible(m_models->count() > 0);
    recentColumn->addWidget(m_models, 3);
    recentColumn->addSpacing(12);
    recentColumn->addWidget(heading(tr("Recent"), this));
    for (const QString &path : recentFiles) {
        // The folder too: presets of the same name in two folders are told apart.
        const QFileInfo info(path);
        auto *item = new QListWidgetItem(QStringLiteral("%1\n%2").arg(info.fileName(), QDir::toNativeSeparators(info.path())), m_recent);
        item->setData(kPathRole, path);
        item->setToolTip(path);
    }
    if (recentFiles.isEmpty())
        recentColumn->addWidget(new QLabel(tr("No recent files yet."), this));
    m_recent->setVisible(!recentFiles.isEmpty());
    recentColumn->addWidget(m_recent, 2);
    recentColumn->addStretch();
    columns->addLayout(recentColumn, 2);
    outer->addLayout(columns, 1);

    for (QListWidget *list : {m_presets, m_models, m_recent}) {
        list->setItemDelegate(new TitledItemDelegate(list));
        list->setSpacing(2);
        list->setResizeMode(QListView::Adjust);  // heights follow the width the descriptions wrap to
        list->setUniformItemSizes(false);
        list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
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

void StartPage::setBackAvailable(bool available) { m_back->setVisible(available); }

bool StartPage::backAvailable() const { return !m_back->isHidden(); }

void StartPage::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape && backAvailable()) {
        Q_EMIT backRequested();
        return;
    }
    QWidget::keyPressEvent(event);
}

bool StartPage::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == parent() && event->type() == QEvent::Resize)
        setGeometry(static_cast<QWidget *>(watched)->rect());
    return QWidget::eventFilter(watched, event);
}

} // namespace ty
