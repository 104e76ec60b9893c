#include "version.h"

#include <QtGlobal>

namespace ty {

QString appVersion() { return QStringLiteral(TRAINYARD_VERSION); }
QString qtVersion() { return QString::fromLatin1(qVersion()); }

} // namespace ty
