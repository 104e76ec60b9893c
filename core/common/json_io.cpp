#include "json_io.h"

#include "regular_file.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSaveFile>

#include <algorithm>
#include <cmath>

namespace ty {

namespace {

void lineAndColumn(const QByteArray &bytes, int offset, int *line, int *column)
{
    *line = 1;
    *column = 1;
    const int end = std::min<int>(offset, bytes.size());
    for (int i = 0; i < end; ++i) {
        if (bytes.at(i) == '\n') {
            ++*line;
            *column = 1;
        } else {
            ++*column;
        }
    }
}

} // namespace

Result<QJsonObject> parseJsonObject(const QByteArray &bytes, const QString &fileName)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        Error error;
        error.file = fileName;
        error.message = QStringLiteral("malformed JSON: %1").arg(parseError.errorString());
        // QJsonParseError::offset lies just past the character the parser stumbled on.
        lineAndColumn(bytes, std::max(0, int(parseError.offset) - 1), &error.line, &error.column);
        return error;
    }
    if (!doc.isObject()) {
        return Error::inFile(fileName, QStringLiteral("expected a JSON object at the top level"));
    }
    return doc.object();
}

Result<QJsonObject> readJsonObjectFile(const QString &path, QByteArray *bytesRead)
{
    if (Status regular = requireRegularFile(path); !regular)
        return regular.error();
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return Error::inFile(path, QStringLiteral("cannot open file: %1").arg(file.errorString()));
    }
    const QByteArray bytes = readAtMost(file, kMaxJsonFileBytes);
    if (bytes.size() > kMaxJsonFileBytes) {
        return Error::inFile(path, QStringLiteral("larger than %1 MiB: not read (a preset is much smaller)").arg(kMaxJsonFileBytes >> 20));
    }
    if (bytesRead)
        *bytesRead = bytes;
    return parseJsonObject(bytes, path);
}

Status writeJsonObjectFile(const QString &path, const QJsonObject &object, const QStringList &keyOrder)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return Error::inFile(path, QStringLiteral("cannot write file: %1").arg(file.errorString()));
    }
    file.write(readableJson(object, keyOrder));
    if (!file.commit()) {
        return Error::inFile(path, QStringLiteral("cannot write file: %1").arg(file.errorString()));
    }
    return Status::success();
}

QString jsonTypeName(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Bool: return QStringLiteral("boolean");
    case QJsonValue::Double: {
        const double d = value.toDouble();
        return (std::floor(d) == d && std::isfinite(d)) ? QStringLiteral("integer") : QStringLiteral("number");
    }
    case QJsonValue::String: return QStringLiteral("string");
    case QJsonValue::Array: return QStringLiteral("array");
    case QJsonValue::Object: return QStringLiteral("object");
    case QJsonValue::Undefined: return QStringLiteral("nothing");
    }
    return QStringLiteral("value");
}

QByteArray canonicalJson(const QJsonValue &value)
{
    // QJsonObject keeps its keys sorted, so compact serialisation is already canonical.
    if (value.isObject())
        return QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact);
    if (value.isArray())
        return QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact);
    QJsonArray wrapper{value};
    QByteArray bytes = QJsonDocument(wrapper).toJson(QJsonDocument::Compact);
    return bytes.mid(1, bytes.size() - 2);
}

namespace {

bool isPlain(const QJsonValue &value) { return !value.isObject() && !value.isArray(); }

void writeReadable(QByteArray &out, const QJsonValue &value, const QStringList &keyOrder, int depth)
{
    const QByteArray indent(2 * (depth + 1), ' ');
    const QByteArray closingIndent(2 * depth, ' ');
    if (value.isArray()) {
        const QJsonArray array = value.toArray();
        const bool inline_ = std::all_of(array.begin(), array.end(), [](const QJsonValue &v) { return isPlain(v); });
        if (array.isEmpty() || inline_) {
            out += '[';
            for (qsizetype i = 0; i < array.size(); ++i)
                out += (i ? ", " : "") + canonicalJson(array.at(i));
            out += ']';
            return;
        }
        out += "[\n";
        for (qsizetype i = 0; i < array.size(); ++i) {
            out += indent;
            writeReadable(out, array.at(i), keyOrder, depth + 1);
            out += i + 1 < array.size() ? ",\n" : "\n";
        }
        out += closingIndent + ']';
        return;
    }
    if (!value.isObject()) {
        out += canonicalJson(value);
        return;
    }
    const QJsonObject object = value.toObject();
    if (object.isEmpty()) {
        out += "{}";
        return;
    }
    QStringList keys;
    for (const QString &key : keyOrder)
        if (object.contains(key))
            keys << key;
    for (auto it = object.begin(); it != object.end(); ++it)  // sorted already
        if (!keyOrder.contains(it.key()))
            keys << it.key();
    out += "{\n";
    for (qsizetype i = 0; i < keys.size(); ++i) {
        out += indent + canonicalJson(keys.at(i)) + ": ";
        writeReadable(out, object.value(keys.at(i)), keyOrder, depth + 1);
        out += i + 1 < keys.size() ? ",\n" : "\n";
    }
    out += closingIndent + '}';
}

} // namespace

QByteArray readableJson(const QJsonObject &object, const QStringList &keyOrder)
{
    QByteArray out;
    writeReadable(out, object, keyOrder, 0);
    out += '\n';
    return out;
}

QJsonValue jsonTime(const QDateTime &time)
{
    if (!time.isValid())
        return QJsonValue();
    const QDate date = time.date();
    if (time.timeSpec() != Qt::UTC || date.year() < 1 || date.year() > 9999)
        return QJsonValue(time.toString(Qt::ISODateWithMs));
    const QTime clock = time.time();
    char text[] = "0000-00-00T00:00:00.000Z";
    const auto put = [&text](int at, int value, int digits) {
        for (int i = digits - 1; i >= 0; --i, value /= 10)
            text[at + i] = char('0' + value % 10);
    };
    put(0, date.year(), 4);
    put(5, date.month(), 2);
    put(8, date.day(), 2);
    put(11, clock.hour(), 2);
    put(14, clock.minute(), 2);
    put(17, clock.second(), 2);
    put(20, clock.msec(), 3);
    return QJsonValue(QLatin1String(text, sizeof(text) - 1));
}

} // namespace ty
