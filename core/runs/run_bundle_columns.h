#pragma once
// Which columns of the run database a run bundle carries, and how a column's SQLite value is written into the
// manifest's JSON and checked when it is read back. Ids, process ids, folders and the links between rows are not
// columns here: the bundle carries uuids for those and the importer assigns them anew.
// Internal to ty_runs (public only because headers of a target share one folder).

#include "error.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QVariant>

namespace ty {

class SqliteStatement;

struct BundleColumn {
    enum Kind { Text, Integer, Real, JsonObject, JsonArray };
    const char *name;
    Kind kind;
    bool nullable;
};

using BundleColumns = QList<BundleColumn>;

const BundleColumns &bundleRunColumns();         // runs
const BundleColumns &bundleSweepColumns();       // sweeps
const BundleColumns &bundleEventColumns();       // events
const BundleColumns &bundleStageColumns();       // stages
const BundleColumns &bundleCheckpointColumns();  // checkpoints (the file itself travels as a block)
const BundleColumns &bundleEvaluationColumns();  // evaluations (the samples travel as a block)

// The position of the column `name` in `columns` (a name that is not there is a programming error: -1).
int bundleColumnIndex(const BundleColumns &columns, const char *name);

// "name, status, ..." for a SELECT or INSERT.
QString bundleColumnList(const BundleColumns &columns);

// The row's columns (read from `statement` starting at column `first`) as a JSON object. Integers beyond 2^53 are
// written as decimal strings and non-finite reals as "Infinity" / "-Infinity", so that every value survives JSON.
QJsonObject bundleRowToJson(const BundleColumns &columns, const SqliteStatement &statement, int first);

// The SQL values of `object`'s columns, checked: every column present with its kind (null only where nullable),
// JSON columns holding valid JSON of their kind, no other keys than `columns` and `extraKeys`. Errors name
// `where` and the column ("runs[2].status: expected a string").
Result<QVariantList> bundleRowFromJson(const BundleColumns &columns, const QJsonObject &object, const QString &where,
                                       const QStringList &extraKeys);

// Binds `values` to parameters first, first + 1, ...
void bindBundleRow(SqliteStatement &statement, int first, const QVariantList &values);

} // namespace ty
