#pragma once
// What the team store's tests share: the fixture's server, a fresh database on it per test, the real trainyard-cli,
// and the comparison of a local run database with the store, table by table and value by value.

#include "program_run.h"

#include <QJsonObject>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QVariant>

namespace tyteam {

// The fixture's connection string (tests/team/CMakeLists.txt), or empty when the server binaries are missing.
QString fixtureServer();
// A new database on the server at `conninfo` (the postgres superuser's); returns its connection string.
QString createDatabase(const QString &conninfo);
// Runs SQL on the store as the superuser; an empty string when it worked, else the error.
QString serverSql(const QString &conninfo, const QString &sql);

using CliResult = tytest::CliOutput;
// Runs the real trainyard-cli to its end (at most 5 minutes).
CliResult cli(const QStringList &arguments, const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment());

// Writes a small synthetic classifier preset (4 blobs in 2-D) training `epochs` epochs of `samples` samples
// into `dir`; returns its path.
QString blobsPreset(const QTemporaryDir &dir, int epochs, int samples = 600);

// Every row of every replicated table of the local database (runs by uuid), and the same read from the store:
// equal lists mean the store holds exactly the local runs. Each row is "table|value|value|..." with numbers
// written exactly. The store's rows are read for the local runs' uuids only.
QStringList localRows(const QString &databasePath);
QStringList storeRows(const QString &conninfo, const QStringList &uuids);
QStringList localUuids(const QString &databasePath);
// The rows of `sql` on the store, the first column of each (queries join theirs with concat_ws('|', ...)); the
// error's message as the only row when it fails. storeValue: the first row's.
QStringList storeQuery(const QString &conninfo, const QString &sql);
QString storeValue(const QString &conninfo, const QString &sql);
// The command's standard output read as a JSON object (empty when it is not one).
QJsonObject jsonOf(const CliResult &result);
// The number of metric rows on the store.
qint64 storeMetricRows(const QString &conninfo);
// The number of run records on the store (a pass sends a run's rows before its record).
qint64 storeRuns(const QString &conninfo);

} // namespace tyteam
