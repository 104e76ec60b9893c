#pragma once
// Reading and writing JSON documents with errors that carry file, line and column.

#include "error.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace ty {

// Parses a whole JSON object from bytes; `fileName` only labels errors.
Result<QJsonObject> parseJsonObject(const QByteArray &bytes, const QString &fileName);

// Reads and parses a file holding one JSON object.
Result<QJsonObject> readJsonObjectFile(const QString &path);

// Writes `object` as indented JSON, atomically (temporary file, then rename).
Status writeJsonObjectFile(const QString &path, const QJsonObject &object);

// "integer", "number", "string", ... as a person would name a JSON value's type.
QString jsonTypeName(const QJsonValue &value);

// Stable, sorted-keys serialisation used for hashing and diffing.
QByteArray canonicalJson(const QJsonValue &value);

} // namespace ty
