#pragma once
// Text from files and databases made safe to print on a terminal: control characters (newlines, escape
// sequences) shown as \n, \t or \xNN instead of acting, and long text cut to an excerpt.

#include <QString>
#include <QStringList>

namespace ty {

// `text` with every control character escaped, cut to at most `maxChars` characters (then ending in "...").
QString printableExcerpt(const QString &text, int maxChars = 200);

// At most `maxItems` items, each a printable excerpt of at most `maxChars`, joined by ", "; "(N more)" after.
QString printableList(const QStringList &items, int maxItems = 8, int maxChars = 24);

} // namespace ty
