#pragma once
// The run database's schema: an ordered list of migration steps, one per schema version, and the function
// that brings a database forward to the newest version inside one write transaction.
//
// To change the schema: append a step (never edit a released one), bump kRunSchemaVersion, document the change
// in docs/run-database.md. The version lives in PRAGMA user_version.
//
// Threads: call on the thread that owns `db`.

#include "error.h"

#include <QList>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>

namespace ty {

constexpr int kRunSchemaVersion = 10;

struct RunSchemaStep {
    int toVersion = 0;        // the user_version after this step
    QString description;
    QStringList statements;   // executed in order, inside the migration's transaction
};

// Every step, ordered by toVersion; the last one's toVersion is kRunSchemaVersion.
const QList<RunSchemaStep> &runSchemaSteps();

// The refusal message for a database whose user_version is newer than this build reads.
QString newerRunSchemaMessage(const QString &path, int version);

// Reads user_version; refuses a newer one (changing nothing); otherwise, when older, runs the missing steps and
// sets user_version inside ONE BEGIN IMMEDIATE transaction, so a failing step leaves the file as it was.
// Safe against several processes opening the same file at once (the version is re-read under the write lock).
Status migrateRunSchema(QSqlDatabase &db, const QString &path);

} // namespace ty
