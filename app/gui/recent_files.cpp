#include "recent_files.h"

#include <QFileInfo>
#include <QSettings>

namespace ty {

namespace {
const char *const kKey = "recentFiles";
}

QStringList RecentFiles::files() const
{
    QStringList out;
    for (const QString &path : QSettings().value(QLatin1String(kKey)).toStringList())
        if (QFileInfo::exists(path))
            out << path;
    return out;
}

void RecentFiles::add(const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = QSettings().value(QLatin1String(kKey)).toStringList();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaxFiles)
        list.removeLast();
    QSettings().setValue(QLatin1String(kKey), list);
}

void RecentFiles::clear()
{
    QSettings().remove(QLatin1String(kKey));
}

} // namespace ty
