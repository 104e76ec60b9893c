#pragma once
// Reading the team store through the local run database's own code: the runs a `runs list|show|metrics --team`
// command reads are copied from the server into a scratch run database (a temporary file, created with
// RunDatabase::open), where each run keeps the server's id. The commands then print it exactly as they print a
// local database, so the team view and the local view share every line of printing.
//
// Threads: call on one thread; it opens its own connection to the scratch file.

#include "error.h"

#include <QList>
#include <QString>

namespace ty {

class PgConnection;

struct TeamMirrorRequest {
    // List: every run's record (without its preset), tags and metric summaries. Otherwise the runs in `runIds`
    // (server ids; one missing is an error naming the store) with everything `runs show` reads, and their metric
    // rows: every one when `everyMetric`, else only the last of each name and the speed reports; only `metric`'s
    // rows when it is given.
    bool list = false;
    QList<qint64> runIds;
    bool everyMetric = false;
    QString metric;
};

Status mirrorTeamRuns(PgConnection &server, const QString &scratchPath, const TeamMirrorRequest &request);

} // namespace ty
