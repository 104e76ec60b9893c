#pragma once
// A small CSV reader for numeric tables: comma-separated cells, optionally in double quotes ("" is a quote
// inside quotes), LF or CRLF line ends, blank lines skipped, a UTF-8 byte order mark ignored. A quoted cell
// may not span lines. Cells are trimmed of spaces and tabs.
// The first row is the header unless every cell of it is a number: then the columns are named
// "column1", "column2", ... and the first row is data.

#include "error.h"

#include <QByteArray>
#include <QStringList>

#include <vector>

namespace ty {

struct CsvRow {
    int line = 0;                // 1-based line in the file
    QList<QByteArray> cells;
};

struct CsvTable {
    QStringList columns;         // header names, or column1..columnN
    bool hasHeader = true;
    std::vector<CsvRow> rows;    // data rows only
    int64_t dataRows = 0;        // every data row of the text, those past maxRows too (counted, not parsed)
};

// Parses `text`. `maxRows` >= 0 keeps that many data rows and only counts the rest. Errors name `file` and the line.
Result<CsvTable> parseCsv(const QByteArray &text, const QString &file, int64_t maxRows = -1);

// Parses a number in the C locale ("1.5", "-2e3") that a 32-bit float holds (the tensors' type); false for
// anything else, including nan, inf and 1e39.
bool parseCsvNumber(const QByteArray &cell, double *value);

// For "no column 'x' (...)": "the columns are: a, b, c" for a header of two or more printable names; for anything
// else (one name, control characters: a file that is probably no CSV, maybe a secret one) a sentence that quotes
// nothing of the file.
QString csvColumnsText(const QStringList &columns);
// Why parseCsvNumber refused `cell`: "is not a number" or "is beyond the range of a 32-bit float (±3.4e38)".
QString csvNumberProblem(const QByteArray &cell);

// Sorts distinct class labels into class order: numerically when every label is a number, else by code point.
void sortClassLabels(QStringList &labels);

} // namespace ty
