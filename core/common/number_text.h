#pragma once
// Numbers as text for files that other programs read back (CSV exports): the shortest text that reads back to the
// same value. Most metric values were computed in single precision and widened to double on their way to the run
// database; the double's own shortest text then shows the float's rounding ("0.30000001192092896"). A double that
// is exactly a float is written as that float's shortest text ("0.3"), which reads back, as a float, to the same
// value; any other double as its own shortest text. NaN is written as "nan", infinities as "inf" and "-inf"
// unless the caller leaves them out.
// Pure functions; any thread.

#include <QString>

namespace ty {

QString shortestNumberText(double value);
bool isWidenedFloat(double value);  // whether the double is exactly a float's value (finite)

} // namespace ty
