#include "report_svg.h"

#include "report_html.h"

#include <cmath>

namespace ty {

QString svgNumber(double value)
{
    if (!std::isfinite(value))
        return QStringLiteral("0");
    const double rounded = std::round(value * 10) / 10;
    return rounded == std::floor(rounded) ? QString::number(qint64(rounded)) : QString::number(rounded, 'f', 1);
}

namespace {

QString attribute(const char *name, const QString &value)
{
    return QStringLiteral(" %1=\"%2\"").arg(QLatin1String(name), htmlEscaped(value));
}

QString strokeAttributes(const QString &stroke, double width, bool dashed)
{
    return attribute("stroke", stroke) + attribute("stroke-width", svgNumber(width)) + (dashed ? QStringLiteral(" stroke-dasharray=\"5 3\"") : QString());
}

} // namespace

SvgWriter::SvgWriter(double width, double height, const QString &title, const QString &cssClass)
{
    m_svg = QStringLiteral("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %1 %2\" width=\"%1\" height=\"%2\" role=\"img\"%3>")
                .arg(svgNumber(width), svgNumber(height), cssClass.isEmpty() ? QString() : attribute("class", cssClass));
    m_svg += QStringLiteral("<title>") + htmlEscaped(title) + QStringLiteral("</title>");
}

void SvgWriter::rect(double x, double y, double w, double h, const QString &fill, const QString &stroke, double radius)
{
    m_svg += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\"").arg(svgNumber(x), svgNumber(y), svgNumber(w), svgNumber(h));
    if (radius > 0)
        m_svg += attribute("rx", svgNumber(radius));
    m_svg += attribute("fill", fill.isEmpty() ? QStringLiteral("none") : fill);
    if (!stroke.isEmpty())
        m_svg += attribute("stroke", stroke);
    m_svg += QStringLiteral("/>");
}

void SvgWriter::line(double x1, double y1, double x2, double y2, const QString &stroke, double width, bool dashed)
{
    m_svg += QStringLiteral("<line x1=\"%1\" y1=\"%2\" x2=\"%3\" y2=\"%4\"").arg(svgNumber(x1), svgNumber(y1), svgNumber(x2), svgNumber(y2))
             + strokeAttributes(stroke, width, dashed) + QStringLiteral("/>");
}

void SvgWriter::polyline(const std::vector<QPointF> &points, const QString &stroke, double width, bool dashed)
{
    if (points.empty())
        return;
    QString coordinates;
    coordinates.reserve(qsizetype(points.size()) * 12);
    for (const QPointF &p : points) {
        if (!coordinates.isEmpty())
            coordinates += QLatin1Char(' ');
        coordinates += svgNumber(p.x()) + QLatin1Char(',') + svgNumber(p.y());
    }
    m_svg += QStringLiteral("<polyline fill=\"none\" stroke-linejoin=\"round\" points=\"") + coordinates + QLatin1Char('"')
             + strokeAttributes(stroke, width, dashed) + QStringLiteral("/>");
}

void SvgWriter::curve(QPointF from, QPointF to, const QString &stroke, double width)
{
    // Forward, a bend of half the way; backward (to the next row of a wrapped chain), a short one.
    const double bend = to.x() > from.x() ? std::max(30.0, (to.x() - from.x()) / 2) : 30.0;
    m_svg += QStringLiteral("<path fill=\"none\" d=\"M%1,%2 C%3,%4 %5,%6 %7,%8\"")
                 .arg(svgNumber(from.x()), svgNumber(from.y()), svgNumber(from.x() + bend), svgNumber(from.y()),
                      svgNumber(to.x() - bend), svgNumber(to.y()), svgNumber(to.x()), svgNumber(to.y()))
             + strokeAttributes(stroke, width, false) + QStringLiteral("/>");
}

void SvgWriter::circle(double cx, double cy, double r, const QString &fill)
{
    m_svg += QStringLiteral("<circle cx=\"%1\" cy=\"%2\" r=\"%3\"").arg(svgNumber(cx), svgNumber(cy), svgNumber(r)) + attribute("fill", fill)
             + QStringLiteral("/>");
}

void SvgWriter::text(double x, double y, const QString &content, const QString &anchor, double size, const QString &fill, bool bold)
{
    m_svg += QStringLiteral("<text x=\"%1\" y=\"%2\" font-size=\"%3\"").arg(svgNumber(x), svgNumber(y), svgNumber(size))
             + attribute("text-anchor", anchor) + attribute("fill", fill) + (bold ? QStringLiteral(" font-weight=\"bold\"") : QString())
             + QLatin1Char('>') + htmlEscaped(content) + QStringLiteral("</text>");
}

void SvgWriter::verticalText(double x, double y, const QString &content, double size, const QString &fill)
{
    m_svg += QStringLiteral("<text x=\"%1\" y=\"%2\" font-size=\"%3\" text-anchor=\"middle\" transform=\"rotate(-90 %1 %2)\"")
                 .arg(svgNumber(x), svgNumber(y), svgNumber(size))
             + attribute("fill", fill) + QLatin1Char('>') + htmlEscaped(content) + QStringLiteral("</text>");
}

void SvgWriter::beginGroup(const QString &tooltip)
{
    m_svg += QStringLiteral("<g>");
    if (!tooltip.isEmpty())
        m_svg += QStringLiteral("<title>") + htmlEscaped(tooltip) + QStringLiteral("</title>");
    ++m_openGroups;
}

void SvgWriter::endGroup()
{
    if (m_openGroups == 0)
        return;
    m_svg += QStringLiteral("</g>");
    --m_openGroups;
}

QString SvgWriter::finish()
{
    while (m_openGroups > 0)
        endGroup();
    return m_svg + QStringLiteral("</svg>");
}

} // namespace ty
