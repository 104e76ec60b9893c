#include "printable_text.h"

namespace ty {

QString printableExcerpt(const QString &text, int maxChars)
{
    QString out;
    for (const QChar c : text) {
        if (out.size() >= maxChars)
            return out + QStringLiteral("...");
        if (c == QLatin1Char('\n'))
            out += QStringLiteral("\\n");
        else if (c == QLatin1Char('\t'))
            out += QStringLiteral("\\t");
        else if (c == QLatin1Char('\r'))
            out += QStringLiteral("\\r");
        else if (c.category() == QChar::Other_Control || c.category() == QChar::Other_Format)
            out += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
        else
            out += c;
    }
    return out;
}

QString printableList(const QStringList &items, int maxItems, int maxChars)
{
    QStringList shown;
    for (int i = 0; i < items.size() && i < maxItems; ++i)
        shown << printableExcerpt(items.at(i), maxChars);
    QString out = shown.join(QStringLiteral(", "));
    if (items.size() > maxItems)
        out += QStringLiteral(" (%1 more)").arg(items.size() - maxItems);
    return out;
}

} // namespace ty
