#include "icon_library.h"

#include "common/canvas_style.h"

#include <QFile>
#include <QGuiApplication>
#include <QHash>
#include <QIconEngine>
#include <QImage>
#include <QPainter>
#include <QPainterPath>
#include <QPalette>
#include <QSvgRenderer>

#include <memory>

static void initTrainyardQrc()
{
    Q_INIT_RESOURCE(trainyard);  // outside any namespace, as the macro requires
}

namespace ty::icons {

namespace {

QByteArray readSvg(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// One renderer per (file, colour), built on first use.
QSvgRenderer *renderer(const QString &path, const QColor &color)
{
    static QHash<QString, std::shared_ptr<QSvgRenderer>> cache;
    const QString key = path + QLatin1Char('|') + color.name(QColor::HexArgb);
    auto it = cache.find(key);
    if (it == cache.end()) {
        QByteArray svg = readSvg(path);
        svg.replace("currentColor", color.name(QColor::HexRgb).toLatin1());
        auto r = std::make_shared<QSvgRenderer>(svg);
        r->setAspectRatioMode(Qt::KeepAspectRatio);
        it = cache.insert(key, r);
    }
    return it->get();
}

// Renders an SVG at any size. With `tinted`, `currentColor` becomes the palette's text colour (greyed when
// disabled), looked up at paint time so icons follow palette changes.
class SvgIconEngine : public QIconEngine {
public:
    SvgIconEngine(QString path, bool tinted) : m_path(std::move(path)), m_tinted(tinted) {}

    void paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State) override
    {
        QColor color = QGuiApplication::palette().color(mode == QIcon::Disabled ? QPalette::Disabled : QPalette::Active,
                                                        QPalette::WindowText);
        if (mode == QIcon::Selected)
            color = QGuiApplication::palette().color(QPalette::HighlightedText);
        QSvgRenderer *r = renderer(m_path, m_tinted ? color : QColor(Qt::black));
        if (!m_tinted && mode == QIcon::Disabled)
            painter->setOpacity(0.4);
        r->render(painter, QRectF(rect));
        painter->setOpacity(1.0);
    }

    QPixmap pixmap(const QSize &size, QIcon::Mode mode, QIcon::State state) override
    {
        return scaledPixmap(size, mode, state, 1.0);
    }

    QPixmap scaledPixmap(const QSize &size, QIcon::Mode mode, QIcon::State state, qreal scale) override
    {
        QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        paint(&painter, QRect(QPoint(0, 0), image.size()), mode, state);
        painter.end();
        QPixmap pixmap = QPixmap::fromImage(image);
        pixmap.setDevicePixelRatio(scale);
        return pixmap;
    }

    QIconEngine *clone() const override { return new SvgIconEngine(m_path, m_tinted); }

private:
    QString m_path;
    bool m_tinted;
};

// A rounded square in the category's colour with the white glyph.
class CategoryIconEngine : public QIconEngine {
public:
    explicit CategoryIconEngine(BlockCategory category) : m_category(category) {}

    void paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State) override
    {
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        if (mode == QIcon::Disabled)
            painter->setOpacity(0.45);
        const QRectF r = QRectF(rect).adjusted(0.5, 0.5, -0.5, -0.5);
        painter->setPen(Qt::NoPen);
        painter->setBrush(style::categoryColor(m_category));
        painter->drawRoundedRect(r, r.width() * 0.22, r.height() * 0.22);
        const qreal inset = r.width() * 0.18;
        paintCategoryGlyph(painter, m_category, r.adjusted(inset, inset, -inset, -inset), Qt::white);
        painter->restore();
    }

    QPixmap pixmap(const QSize &size, QIcon::Mode mode, QIcon::State state) override
    {
        return scaledPixmap(size, mode, state, 1.0);
    }

    QPixmap scaledPixmap(const QSize &size, QIcon::Mode mode, QIcon::State state, qreal scale) override
    {
        QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        paint(&painter, QRect(QPoint(0, 0), image.size()), mode, state);
        painter.end();
        QPixmap pixmap = QPixmap::fromImage(image);
        pixmap.setDevicePixelRatio(scale);
        return pixmap;
    }

    QIconEngine *clone() const override { return new CategoryIconEngine(m_category); }

private:
    BlockCategory m_category;
};

} // namespace

void initResources()
{
    static const bool done = [] {
        initTrainyardQrc();
        return true;
    }();
    Q_UNUSED(done);
}

QIcon appIcon()
{
    initResources();
    return QIcon(new SvgIconEngine(QStringLiteral(":/icons/app/trainyard.svg"), false));
}

QIcon actionIcon(const QString &name)
{
    initResources();
    return QIcon(new SvgIconEngine(QStringLiteral(":/icons/actions/%1.svg").arg(name), true));
}

QIcon statusIcon(const QString &name)
{
    initResources();
    return QIcon(new SvgIconEngine(QStringLiteral(":/icons/actions/%1.svg").arg(name), false));
}

QIcon categoryIcon(BlockCategory category)
{
    initResources();
    return QIcon(new CategoryIconEngine(category));
}

QString categoryIconPath(BlockCategory category)
{
    return QStringLiteral(":/icons/categories/%1.svg").arg(categoryName(category));
}

void paintCategoryGlyph(QPainter *painter, BlockCategory category, const QRectF &rect, const QColor &color)
{
    initResources();
    renderer(categoryIconPath(category), color)->render(painter, rect);
}

void paintActionGlyph(QPainter *painter, const QString &name, const QRectF &rect, const QColor &color)
{
    initResources();
    renderer(QStringLiteral(":/icons/actions/%1.svg").arg(name), color)->render(painter, rect);
}

} // namespace ty::icons
