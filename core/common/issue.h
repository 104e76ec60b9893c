#pragma once
// A validation finding pinned to the node (and port or parameter) that causes it.

#include <QJsonObject>
#include <QList>
#include <QString>

namespace ty {

enum class Severity { Error, Warning, Info };

QString severityName(Severity severity);

struct Issue {
    Severity severity = Severity::Error;
    QString message;
    QString node;   // node id; empty for graph-wide issues
    QString port;   // port name, if the issue is about a port or an edge
    QString param;  // parameter name or training key, if the issue is about a value

    QString toString() const;  // "error: node 'conv1', param 'kernel_size': must be at least 1"
    QJsonObject toJson() const;
};

using Issues = QList<Issue>;

bool hasErrors(const Issues &issues);

} // namespace ty
