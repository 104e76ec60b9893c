#pragma once
// trainyard-cli runs import FILE [--db PATH]: merges a run bundle (run_bundle_export.h) into a run database by
// uuid. Runs and sweeps already there (same uuid) are left as they are; the others are added with their own ids
// where those are free, renumbered where they clash, and every link is mapped: a trial to its sweep, a sweep to
// its best run, a run to the run it started from. The whole bundle is checked before anything is written, and
// written in one transaction: a damaged, altered or inconsistent bundle is refused whole, changing nothing.

#include "error.h"

#include <QList>
#include <QString>

namespace ty {

struct RunBundleImportReport {
    struct Item {
        qint64 bundleId = 0;  // its id in the database it was exported from
        qint64 id = 0;        // its id here
        QString uuid;
        QString name;
        bool added = false;   // false: it was already here
    };
    QList<Item> runs;
    QList<Item> sweeps;
    qint64 metricRows = 0;    // rows added
    int checkpoints = 0;      // checkpoint files added
    int evaluations = 0;

    int runsAdded() const;
    int sweepsAdded() const;
};

// Reads and checks the bundle, then opens (creating or migrating it when needed) the database at `databasePath`,
// which must not be on a shared folder, and merges the bundle into it. A bundle refused leaves no database file
// behind where there was none. Checkpoint files go to each added run's folder (RunDatabase::runFolder), under
// checkpoints/.
Result<RunBundleImportReport> importRunBundle(const QString &databasePath, const QString &bundlePath);

} // namespace ty
