#pragma once
// A small writer of inline SVG for the HTML reports: shapes, polylines and escaped text, numbers with one decimal.
// The result is an <svg> element with the SVG namespace, well-formed XML by construction. Not thread-safe; one
// writer per picture.

#include <QPointF>
#include <QString>

#include <vector>

namespace ty {

class SvgWriter {
public:
    // An <svg> of width x height user units, scaled to its container's width (viewBox), with an accessible title.
    SvgWriter(double width, double height, const QString &title, const QString &cssClass = {});

    void rect(double x, double y, double w, double h, const QString &fill, const QString &stroke = {}, double radius = 0);
    void line(double x1, double y1, double x2, double y2, const QString &stroke, double width = 1, bool dashed = false);
    void polyline(const std::vector<QPointF> &points, const QString &stroke, double width = 1.5, bool dashed = false);
    // A cubic Bézier from `from` to `to`, leaving and arriving horizontally (an edge of the graph picture).
    void curve(QPointF from, QPointF to, const QString &stroke, double width = 1.2);
    void circle(double cx, double cy, double r, const QString &fill);
    // `anchor` is start, middle or end; the text is escaped here.
    void text(double x, double y, const QString &text, const QString &anchor = QStringLiteral("start"), double size = 11,
              const QString &fill = QStringLiteral("#222"), bool bold = false);
    // Text turned a quarter left about its anchor point (a vertical axis's label), centred there.
    void verticalText(double x, double y, const QString &text, double size = 11, const QString &fill = QStringLiteral("#333"));
    // A <title> tooltip around nothing: the next shapes' group. Opens a <g>; close it with endGroup().
    void beginGroup(const QString &tooltip = {});
    void endGroup();

    // The finished element (closes any open group).
    QString finish();

private:
    QString m_svg;
    int m_openGroups = 0;
};

// A coordinate as the SVG holds it: one decimal, no trailing ".0".
QString svgNumber(double value);

} // namespace ty
