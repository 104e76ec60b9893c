#pragma once
// Text for the HTML reports (run_report.h): everything that comes from a database or a preset goes through
// htmlEscaped before it is written, so that a foreign bundle's names cannot add markup or scripts. The page is
// XHTML-shaped (every element closed, attributes quoted, no entity but &amp; &lt; &gt; &quot; &#39;), so that an XML
// reader can check it as well as a browser can show it. Pure functions; any thread.

#include <QByteArray>
#include <QString>

namespace ty {

// `text` with & < > " ' as character references, and the characters XML forbids (controls other than tab,
// newline and carriage return, lone surrogates, U+FFFE/U+FFFF) replaced by U+FFFD.
QString htmlEscaped(const QString &text);

// JSON text made safe inside <script type="application/json">: < > & written as \u003c \u003e \u0026 (the same
// JSON value), so that no "</script>" or markup can end the block early.
QByteArray jsonForScriptBlock(const QByteArray &json);

// A number as the reports print it: up to `digits` significant digits, "-" for NaN or infinity.
QString reportNumber(double value, int digits = 4);

} // namespace ty
