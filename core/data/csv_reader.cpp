#include "csv_reader.h"

#include "printable_text.h"

#include <QSet>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ty {

namespace {

QByteArray trimmed(QByteArray cell)
{
    int begin = 0;
    int end = int(cell.size());
    while (begin < end && (cell[begin] == ' ' || cell[begin] == '\t'))
        ++begin;
    while (end > begin && (cell[end - 1] == ' ' || cell[end - 1] == '\t'))
        --end;
    return cell.mid(begin, end - begin);
}

// Splits one line (without its line end) into cells. False on an unterminated quote.
bool splitLine(const char *begin, const char *end, QList<QByteArray> *cells)
{
    cells->clear();
    QByteArray cell;
    bool quoted = false;     // inside quotes
    bool wasQuoted = false;  // this cell had quotes: keep its spaces
    for (const char *p = begin; p < end; ++p) {
        const char c = *p;
        if (quoted) {
            if (c == '"') {
                if (p + 1 < end && p[1] == '"') {
                    cell += '"';
                    ++p;
                } else {
                    quoted = false;
                }
            } else {
                cell += c;
            }
        } else if (c == '"') {
            quoted = true;
            wasQuoted = true;
            cell = trimmed(cell);
        } else if (wasQuoted && (c == ' ' || c == '\t')) {
            continue;  // spaces after a closing quote
        } else if (c == ',') {
            cells->append(wasQuoted ? cell : trimmed(cell));
            cell.clear();
            wasQuoted = false;
        } else {
            cell += c;
        }
    }
    cells->append(wasQuoted ? cell : trimmed(cell));
    return !quoted;
}

} // namespace

bool parseCsvNumber(const QByteArray &cell, double *value)
{
    if (cell.isEmpty())
        return false;
    bool ok = false;
    const double parsed = cell.toDouble(&ok);
    if (!ok || !std::isfinite(parsed) || std::abs(parsed) > double(std::numeric_limits<float>::max()))
        return false;
    *value = parsed;
    return true;
}

QString csvNumberProblem(const QByteArray &cell)
{
    bool ok = false;
    const double parsed = cell.toDouble(&ok);
    if (ok && std::isfinite(parsed))
        return QStringLiteral("is beyond the range of a 32-bit float (±3.4e38)");
    return QStringLiteral("is not a number");
}

Result<CsvTable> parseCsv(const QByteArray &text, const QString &file, int64_t maxRows)
{
    CsvTable table;
    const char *p = text.constData();
    const char *const end = p + text.size();
    if (text.startsWith("\xEF\xBB\xBF"))
        p += 3;

    bool first = true;
    int line = 0;
    QList<QByteArray> cells;
    while (p < end) {
        ++line;
        const char *lineEnd = static_cast<const char *>(memchr(p, '\n', size_t(end - p)));
        if (!lineEnd)
            lineEnd = end;
        const char *contentEnd = lineEnd;
        if (contentEnd > p && contentEnd[-1] == '\r')
            --contentEnd;
        const char *next = lineEnd < end ? lineEnd + 1 : end;

        bool blank = true;
        for (const char *q = p; q < contentEnd && blank; ++q)
            blank = *q == ' ' || *q == '\t';
        if (!blank && !first && maxRows >= 0 && int64_t(table.rows.size()) >= maxRows) {
            ++table.dataRows;  // past maxRows: counted, not parsed
            p = next;
            continue;
        }
        if (!blank) {
            if (!splitLine(p, contentEnd, &cells)) {
                Error e;
                e.file = file;
                e.line = line;
                e.message = QStringLiteral("a quoted cell is not closed on its line");
                return e;
            }
            if (first) {
                first = false;
                bool numeric = true;
                double ignored = 0;
                for (const QByteArray &cell : cells)
                    numeric = numeric && parseCsvNumber(cell, &ignored);
                table.hasHeader = !numeric;
                if (table.hasHeader) {
                    QSet<QString> seen;
                    for (const QByteArray &cell : cells) {
                        const QString name = QString::fromUtf8(cell);
                        if (seen.contains(name)) {
                            Error e;
                            e.file = file;
                            e.line = line;
                            e.message = QStringLiteral("the header names the column '%1' twice").arg(name);
                            return e;
                        }
                        seen.insert(name);
                        table.columns << name;
                    }
                    p = next;
                    continue;
                }
                for (int i = 0; i < cells.size(); ++i)
                    table.columns << QStringLiteral("column%1").arg(i + 1);
            }
            if (maxRows >= 0 && int64_t(table.rows.size()) >= maxRows) {
                ++table.dataRows;  // maxRows is 0
                p = next;
                continue;
            }
            table.rows.push_back(CsvRow{line, cells});
            ++table.dataRows;
        }
        p = next;
    }
    return table;
}

void sortClassLabels(QStringList &labels)
{
    double ignored = 0;
    const bool numeric = std::all_of(labels.begin(), labels.end(), [&](const QString &label) { return parseCsvNumber(label.toUtf8(), &ignored); });
    if (numeric) {
        std::sort(labels.begin(), labels.end(), [](const QString &a, const QString &b) {
            const double x = a.toDouble(), y = b.toDouble();
            return x != y ? x < y : a < b;
        });
    } else {
        std::sort(labels.begin(), labels.end());
    }
}

QString csvColumnsText(const QStringList &columns)
{
    const bool header = columns.size() >= 2 && std::all_of(columns.cbegin(), columns.cend(), [](const QString &name) {
        return std::none_of(name.cbegin(), name.cend(), [](QChar c) { return c.category() == QChar::Other_Control || c == QChar::ReplacementCharacter; });
    });
    if (!header)
        return QStringLiteral("its first line is not a header of comma-separated column names: is it a CSV file?");
    return QStringLiteral("the columns are: %1").arg(printableList(columns));
}

} // namespace ty
