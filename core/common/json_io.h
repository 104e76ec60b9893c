#pragma once
// Reading and writing JSON documents with errors that carry file, line and column.

#include "error.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace ty {

// Parses a whole JSON object from bytes; `fileName` only labels errors.
Result<QJsonObject> parseJsonObject(const QByteArray &bytes, const QString &fileName);

// Reads and parses a file holding one JSON object.
// Refuses what is not a regular file and anything over kMaxJsonFileBytes, before reading it whole.
// `bytesRead`, when given, receives the bytes parsed (to hash exactly what was read, not a second read).
constexpr qint64 kMaxJsonFileBytes = qint64(64) << 20;
Result<QJsonObject> readJsonObjectFile(const QString &path, QByteArray *bytesRead = nullptr);

// Writes `object` as indented JSON, atomically (temporary file, then rename); see readableJson.
Status writeJsonObjectFile(const QString &path, const QJsonObject &object, const QStringList &keyOrder = {});

// JSON for people and diffs: two-space indentation, the keys named in `keyOrder` first and in that order (the
// rest sorted), arrays of plain values on one line ("pos": [40, 120]). Numbers and strings are written as
// QJsonDocument writes them, so parsing the text gives back the same values.
QByteArray readableJson(const QJsonObject &object, const QStringList &keyOrder = {});

// A time as JSON: ISO 8601 with milliseconds, as QDateTime::toString(Qt::ISODateWithMs) writes it
// ("2026-11-28T17:41:38.086Z" for UTC), or null when `time` is invalid. UTC times of the years 1 to 9999 (every
// time a run database holds) are written digit by digit: toString formats with asprintf, a tenth of
// `runs list --json` on 10,000 runs.
QJsonValue jsonTime(const QDateTime &time);

// "integer", "number", "string", ... as a person would name a JSON value's type.
QString jsonTypeName(const QJsonValue &value);

// Stable, sorted-keys serialisation used for hashing and diffing.
QByteArray canonicalJson(const QJsonValue &value);

} // namespace ty
