#include "shape_types.h"

#include <QStringList>

namespace ty {

QString shapeText(const SampleShape &shape)
{
    QStringList parts;
    for (int64_t d : shape)
        parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString shapeToText(const std::vector<qint64> &shape)
{
    return shapeText(SampleShape(shape.begin(), shape.end()));
}

} // namespace ty
