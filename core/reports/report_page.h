#pragma once
// The frame of an HTML report: one self-contained XHTML-shaped page (inline CSS, inline SVG, no script that runs,
// nothing fetched), a table of contents, the sections in order, and the report's data as JSON in
// <script type="application/json" id="trainyard-data">. Callers pass markup they built with htmlEscaped; the
// page escapes the title itself. Not thread-safe; one page per report.

#include <QByteArray>
#include <QList>
#include <QString>

namespace ty {

class ReportPage {
public:
    explicit ReportPage(const QString &title);

    // A section <section id="ID"> with an <h2>; `body` is markup.
    void addSection(const QString &id, const QString &heading, const QString &body);
    // A line of facts under the title (markup).
    void setSubtitle(const QString &markup) { m_subtitle = markup; }

    // The page, UTF-8, with `dataJson` (a JSON value's text) as its data block.
    QByteArray finish(const QByteArray &dataJson) const;

private:
    struct Section {
        QString id, heading, body;
    };
    QString m_title, m_subtitle;
    QList<Section> m_sections;
};

// A cell of dataTable: text (escaped when written; the default, from a QString), a number (right-aligned text) or
// markup the caller built.
struct TableCell {
    TableCell(const QString &text) : content(text) {}
    TableCell(const char *text) : content(QString::fromUtf8(text)) {}
    static TableCell number(const QString &text);
    static TableCell markup(const QString &html, const QString &cssClass = {});
    QString content, cssClass;
    QString style;  // an inline style (a shade), written escaped
    bool isMarkup = false;
};

// Markup helpers: a two-column table of facts (names and values escaped here), a table with a header row, a
// paragraph of escaped text.
QString factsTable(const QList<QPair<QString, QString>> &facts);
QString dataTable(const QList<TableCell> &header, const QList<QList<TableCell>> &rows, const QString &cssClass = {});
QString paragraph(const QString &text, const QString &cssClass = {});

} // namespace ty
