#pragma once

#include <QString>

namespace ty {

QString appVersion();  // Trainyard's own version, from CMake's project()
QString qtVersion();   // the Qt library the program runs with

} // namespace ty
