#pragma once
// The "Open Recent" list, most recent first, kept in QSettings (key "recentFiles"). Files that no longer
// exist are left out. Thread affinity: the GUI thread.

#include <QStringList>

namespace ty {

class RecentFiles {
public:
    static constexpr int kMaxFiles = 10;

    QStringList files() const;
    void add(const QString &path);
    void clear();
};

} // namespace ty
