#include "report_page.h"

#include "report_html.h"
#include "version.h"

namespace ty {

namespace {

const char kStyle[] = R"(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222; margin: 0; background: #f6f7f9; }
header { background: #263238; color: #fff; padding: 18px 28px; }
header h1 { margin: 0 0 4px; font-size: 22px; }
header p { margin: 0; color: #cfd8dc; }
nav { padding: 8px 28px; background: #eceff1; border-bottom: 1px solid #cfd8dc; }
nav a { margin-right: 16px; color: #37474f; text-decoration: none; }
main { padding: 8px 28px 40px; max-width: 1100px; }
section { background: #fff; border: 1px solid #dde1e4; border-radius: 6px; margin: 18px 0; padding: 6px 20px 16px; }
h2 { font-size: 18px; border-bottom: 1px solid #eceff1; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
table { border-collapse: collapse; margin: 6px 0 12px; }
th, td { border: 1px solid #e0e0e0; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f5f5f5; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.facts th { width: 200px; }
table.confusion td { text-align: right; min-width: 2.5em; }
svg { max-width: 100%; height: auto; display: block; margin: 8px 0; }
svg.graph { border: 1px solid #eceff1; background: #fafafa; }
pre { background: #f5f5f5; padding: 8px; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
.note { color: #666; }
.best { background: #e8f5e9; }
footer { color: #777; padding: 0 28px 20px; font-size: 12px; }
)";

} // namespace

ReportPage::ReportPage(const QString &title) : m_title(title) {}

void ReportPage::addSection(const QString &id, const QString &heading, const QString &body)
{
    m_sections.append(Section{id, heading, body});
}

QByteArray ReportPage::finish(const QByteArray &dataJson) const
{
    QString html = QStringLiteral("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
                                  "<meta charset=\"utf-8\"/>\n<meta name=\"generator\" content=\"Trainyard %1\"/>\n"
                                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>%2</title>\n<style>")
                       .arg(htmlEscaped(appVersion()), htmlEscaped(m_title));
    html += QString::fromLatin1(kStyle);
    html += QStringLiteral("</style>\n</head>\n<body>\n<header><h1>") + htmlEscaped(m_title) + QStringLiteral("</h1>");
    if (!m_subtitle.isEmpty())
        html += QStringLiteral("<p>") + m_subtitle + QStringLiteral("</p>");
    html += QStringLiteral("</header>\n<nav>");
    for (const Section &s : m_sections)
        html += QStringLiteral("<a href=\"#%1\">%2</a>").arg(htmlEscaped(s.id), htmlEscaped(s.heading));
    html += QStringLiteral("<a href=\"#data\">Data</a></nav>\n<main>\n");
    for (const Section &s : m_sections)
        html += QStringLiteral("<section id=\"%1\"><h2>%2</h2>\n").arg(htmlEscaped(s.id), htmlEscaped(s.heading)) + s.body
                + QStringLiteral("\n</section>\n");
    html += QStringLiteral("<section id=\"data\"><h2>Data</h2>")
            + paragraph(QStringLiteral("Every metric row of the report, and what its tables show, are in this file as JSON: the element "
                                       "<script type=\"application/json\" id=\"trainyard-data\"> (docs/reports.md)."),
                        QStringLiteral("note"))
            + QStringLiteral("</section>\n</main>\n<footer>Written by Trainyard ") + htmlEscaped(appVersion())
            + QStringLiteral(". This page loads nothing from the network.</footer>\n"
                             "<script type=\"application/json\" id=\"trainyard-data\">");
    QByteArray bytes = html.toUtf8();
    bytes += jsonForScriptBlock(dataJson);
    bytes += "</script>\n</body>\n</html>\n";
    return bytes;
}

QString factsTable(const QList<QPair<QString, QString>> &facts)
{
    QString out = QStringLiteral("<table class=\"facts\">");
    for (const auto &[name, value] : facts)
        out += QStringLiteral("<tr><th>%1</th><td>%2</td></tr>").arg(htmlEscaped(name), htmlEscaped(value));
    return out + QStringLiteral("</table>");
}

TableCell TableCell::number(const QString &text)
{
    TableCell cell(text);
    cell.cssClass = QStringLiteral("num");
    return cell;
}

TableCell TableCell::markup(const QString &html, const QString &cssClass)
{
    TableCell cell(html);
    cell.isMarkup = true;
    cell.cssClass = cssClass;
    return cell;
}

namespace {

QString cellMarkup(const char *tag, const TableCell &cell)
{
    QString open = QStringLiteral("<") + QLatin1String(tag);
    if (!cell.cssClass.isEmpty())
        open += QStringLiteral(" class=\"%1\"").arg(htmlEscaped(cell.cssClass));
    if (!cell.style.isEmpty())
        open += QStringLiteral(" style=\"%1\"").arg(htmlEscaped(cell.style));
    return open + QLatin1Char('>') + (cell.isMarkup ? cell.content : htmlEscaped(cell.content)) + QStringLiteral("</%1>").arg(QLatin1String(tag));
}

} // namespace

QString dataTable(const QList<TableCell> &header, const QList<QList<TableCell>> &rows, const QString &cssClass)
{
    QString out = cssClass.isEmpty() ? QStringLiteral("<table>") : QStringLiteral("<table class=\"%1\">").arg(htmlEscaped(cssClass));
    out += QStringLiteral("<thead><tr>");
    for (const TableCell &h : header)
        out += cellMarkup("th", h);
    out += QStringLiteral("</tr></thead><tbody>");
    for (const QList<TableCell> &row : rows) {
        out += QStringLiteral("<tr>");
        for (const TableCell &cell : row)
            out += cellMarkup("td", cell);
        out += QStringLiteral("</tr>");
    }
    return out + QStringLiteral("</tbody></table>");
}

QString paragraph(const QString &text, const QString &cssClass)
{
    return (cssClass.isEmpty() ? QStringLiteral("<p>") : QStringLiteral("<p class=\"%1\">").arg(htmlEscaped(cssClass))) + htmlEscaped(text)
           + QStringLiteral("</p>");
}

} // namespace ty
