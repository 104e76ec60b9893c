#include "common/canvas_style.h"

#include <QLocale>

namespace ty::style {

QColor categoryColor(BlockCategory category)
{
    switch (category) {
    case BlockCategory::Dataset: return QColor(0x2f, 0x9e, 0x5b);    // green
    case BlockCategory::Transform: return QColor(0x1f, 0x9a, 0xa8);  // teal
    case BlockCategory::Layer: return QColor(0x3b, 0x6e, 0xd0);      // blue
    case BlockCategory::Loss: return QColor(0xd9, 0x4f, 0x3d);       // red
    case BlockCategory::Optimizer: return QColor(0x84, 0x58, 0xc9);  // purple
    case BlockCategory::Schedule: return QColor(0xc2, 0x4f, 0x9a);   // magenta
    case BlockCategory::Metric: return QColor(0xd0, 0x8a, 0x1c);     // amber
    }
    return QColor(0x80, 0x80, 0x80);
}

QString categoryTitle(BlockCategory category)
{
    switch (category) {
    case BlockCategory::Dataset: return QObject::tr("Datasets");
    case BlockCategory::Transform: return QObject::tr("Transforms");
    case BlockCategory::Layer: return QObject::tr("Layers");
    case BlockCategory::Loss: return QObject::tr("Losses");
    case BlockCategory::Optimizer: return QObject::tr("Optimizers");
    case BlockCategory::Schedule: return QObject::tr("Schedules");
    case BlockCategory::Metric: return QObject::tr("Metrics");
    }
    return QString();
}

QColor portColor(PortKind kind)
{
    switch (kind) {
    case PortKind::Tensor: return QColor(0x4a, 0x8f, 0xe7);    // blue: data flowing through the network
    case PortKind::Target: return QColor(0x2f, 0xb3, 0x6b);    // green: labels from the dataset
    case PortKind::Loss: return QColor(0xe5, 0x5b, 0x48);      // red
    case PortKind::Schedule: return QColor(0xc8, 0x5c, 0xb0);  // magenta
    }
    return QColor(0x80, 0x80, 0x80);
}

QColor errorColor() { return QColor(0xe0, 0x3c, 0x31); }
QColor warningColor() { return QColor(0xe3, 0x9b, 0x12); }
QColor okColor() { return QColor(0x2f, 0x9e, 0x5b); }

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

QColor canvasBackground(const QPalette &palette)
{
    const QColor base = palette.color(QPalette::Base);
    return isDark(palette) ? base.darker(125) : palette.color(QPalette::Window).lighter(103);
}

QColor gridColor(const QPalette &palette, bool major)
{
    QColor c = palette.color(QPalette::Text);
    c.setAlphaF(isDark(palette) ? (major ? 0.13 : 0.06) : (major ? 0.11 : 0.05));
    return c;
}

QColor nodeBody(const QPalette &palette)
{
    return isDark(palette) ? palette.color(QPalette::Window).lighter(118) : palette.color(QPalette::Base);
}

QColor nodeBorder(const QPalette &palette)
{
    QColor c = palette.color(QPalette::Text);
    c.setAlphaF(isDark(palette) ? 0.28 : 0.22);
    return c;
}

QColor mutedText(const QPalette &palette)
{
    QColor c = palette.color(QPalette::Text);
    c.setAlphaF(0.62);
    return c;
}

QColor selectionColor(const QPalette &palette)
{
    return palette.color(QPalette::Highlight);
}

QFont titleFont()
{
    QFont f;
    f.setPixelSize(13);
    f.setBold(true);
    return f;
}

QFont bodyFont()
{
    QFont f;
    f.setPixelSize(12);
    return f;
}

QFont smallFont()
{
    QFont f;
    f.setPixelSize(11);
    return f;
}

QString compactCount(qint64 count)
{
    if (count < 1000)
        return QString::number(count);
    if (count < 10000)
        return QStringLiteral("%1k").arg(count / 1000.0, 0, 'f', 1);
    if (count < 1000000)
        return QStringLiteral("%1k").arg(qRound(count / 1000.0));
    return QStringLiteral("%1M").arg(count / 1e6, 0, 'f', count < 10000000 ? 2 : 1);
}

QString counted(qint64 count, const QString &singular, const QString &plural)
{
    return groupedCount(count) + QLatin1Char(' ') + (count == 1 ? singular : plural);
}

QString groupedCount(qint64 count)
{
    QLocale c(QLocale::English);
    return c.toString(count);
}

} // namespace ty::style
