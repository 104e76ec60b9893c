#include "text_dataset.h"

#include "dataset_params.h"
#include "dataset_split.h"
#include "regular_file.h"
#include "sha256.h"

#include <QFile>
#include <QStringDecoder>

#include <algorithm>
#include <cmath>
#include <map>

namespace ty {

namespace {

constexpr qint64 kMaxTextBytes = qint64(256) << 20;  // read whole, and each window is stored
constexpr qint64 kMaxWindowValues = qint64(2) << 30;  // all windows together, before limit: 2 GiB as bytes
const QString kPath = QStringLiteral("path");
const QString kWindow = QStringLiteral("window");

struct TextSettings {
    QString path;
    int64_t window = 32;
    int64_t stride = 1;
    bool lowercase = false;
    double testFraction = 0.1;
    SplitSettings split;
};

Result<TextSettings> readSettings(DatasetParams &params)
{
    TextSettings s;
    s.path = params.path(kPath);
    s.window = params.integer(kWindow, 32, 1, 4096);
    s.stride = params.integer(QStringLiteral("stride"), 1, 1, 1000000);
    s.lowercase = params.boolean(QStringLiteral("lowercase"), false);
    s.testFraction = params.number(QStringLiteral("test_fraction"), 0.1, 0.0, 0.9);
    s.split = readSplitSettings(params);
    if (!params.ok())
        return params.firstError();
    if (s.path.isEmpty())
        return params.error(kPath, QStringLiteral("no text file given"));
    // The classes are the characters the windows are made of: keeping some would renumber the labels but not the
    // ids in the windows.
    if (!s.split.keepClassItems.isEmpty())
        return params.error(QStringLiteral("keep_classes"), QStringLiteral("does not apply to text: its classes are the characters of the windows"));
    return s;
}

// The file's characters as code points.
Result<std::u32string> readText(const TextSettings &s, const DatasetParams &params, Sha256 *hash)
{
    if (Status regular = requireRegularFile(s.path); !regular)
        return params.error(kPath, regular.error().message, s.path);
    QFile file(s.path);
    if (file.size() > kMaxTextBytes)
        return params.error(kPath, QStringLiteral("the file is %1 bytes, more than the %2 a text data set may have")
                                       .arg(file.size()).arg(kMaxTextBytes), s.path);
    if (!file.open(QIODevice::ReadOnly))
        return params.error(kPath, QStringLiteral("cannot open file: %1").arg(file.errorString()), s.path);
    const QByteArray bytes = file.readAll();
    if (hash)
        hash->addData(bytes);
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    QString text = decoder.decode(bytes);
    if (decoder.hasError()) {
        const qsizetype bad = std::max<qsizetype>(0, text.indexOf(QChar::ReplacementCharacter));
        Error e = params.error(kPath, QStringLiteral("is not UTF-8 text: a byte sequence that UTF-8 does not allow"), s.path);
        e.line = int(text.left(bad).count(QLatin1Char('\n'))) + 1;
        return e;
    }
    if (s.lowercase)
        text = text.toLower();
    const QList<uint> ucs4 = text.toUcs4();
    return std::u32string(ucs4.begin(), ucs4.end());
}

struct Vocabulary {
    std::map<char32_t, int64_t> ids;
    QStringList names;
};

Vocabulary vocabularyOf(const std::u32string &text)
{
    Vocabulary v;
    for (char32_t c : text)
        v.ids.emplace(c, 0);
    int64_t next = 0;
    for (auto &entry : v.ids) {
        entry.second = next++;
        v.names << characterClassName(entry.first);
    }
    return v;
}

int64_t windowCount(int64_t characters, const TextSettings &s)
{
    return characters > s.window ? (characters - s.window - 1) / s.stride + 1 : 0;
}

Status checkLength(int64_t characters, const TextSettings &s, const DatasetParams &params)
{
    const int64_t windows = windowCount(characters, s);
    if (windows < 1)
        return params.error(kWindow, QStringLiteral("the text has %1 characters, too few for one window of %2 and the character after it")
                                         .arg(characters).arg(s.window), s.path);
    // Every window is stored before the splits and limits choose among them.
    if (windows * s.window > kMaxWindowValues)
        return params.error(QStringLiteral("stride"), QStringLiteral("%1 windows of %2 characters would hold %3 values, more than the %4 "
                                                                      "a text data set may: raise the stride or use a shorter file")
                                                          .arg(windows).arg(s.window).arg(windows * s.window).arg(kMaxWindowValues), s.path);
    return Status::success();
}

int64_t testCountOf(int64_t windows, const TextSettings &s) { return int64_t(std::llround(s.testFraction * double(windows))); }

} // namespace

QString characterClassName(char32_t c)
{
    switch (c) {
    case U' ': return QStringLiteral("space");
    case U'\n': return QStringLiteral("\\n");
    case U'\t': return QStringLiteral("\\t");
    case U'\r': return QStringLiteral("\\r");
    default: break;
    }
    const QString s = QString::fromUcs4(&c, 1);
    if (c < 0x20 || c == 0x7f || (s.size() == 1 && !s.at(0).isPrint()))
        return QStringLiteral("U+") + QString::number(uint(c), 16).toUpper().rightJustified(4, QLatin1Char('0'));
    return s;
}

char32_t characterOfClassName(const QString &name)
{
    if (name == QStringLiteral("space"))
        return U' ';
    if (name == QStringLiteral("\\n"))
        return U'\n';
    if (name == QStringLiteral("\\t"))
        return U'\t';
    if (name == QStringLiteral("\\r"))
        return U'\r';
    if (name.startsWith(QStringLiteral("U+")) && name.size() > 2) {
        bool ok = false;
        const uint code = name.mid(2).toUInt(&ok, 16);
        return ok ? char32_t(code) : 0;
    }
    const QList<uint> ucs4 = name.toUcs4();
    return ucs4.size() == 1 ? char32_t(ucs4.front()) : 0;
}

Result<std::vector<int64_t>> characterIds(const QString &text, const QStringList &vocabulary)
{
    std::map<QString, int64_t> index;
    for (int i = 0; i < vocabulary.size(); ++i)
        index.emplace(vocabulary[i], i);
    std::vector<int64_t> ids;
    for (uint c : text.toUcs4()) {
        const QString name = characterClassName(char32_t(c));
        const auto found = index.find(name);
        if (found == index.end())
            return Error{QStringLiteral("the character '%1' is not in the model's vocabulary of %2 characters").arg(name).arg(vocabulary.size())};
        ids.push_back(found->second);
    }
    return ids;
}

Result<DatasetShape> describeTextDataset(const DatasetRequest &request)
{
    DatasetParams params(request);
    Result<TextSettings> settings = readSettings(params);
    if (!settings)
        return settings.error();
    const TextSettings &s = settings.value();
    Result<std::u32string> text = readText(s, params, nullptr);
    if (!text)
        return text.error();
    const int64_t n = int64_t(text.value().size());
    if (const Status length = checkLength(n, s, params); !length)
        return length.error();
    DatasetShape shape;
    shape.sampleShape = {s.window};
    shape.classification = true;
    shape.classLabels = vocabularyOf(text.value()).names;
    shape.numClasses = shape.classLabels.size();
    shape.sampleValueBytes = shape.numClasses > 256 ? 4 : 1;  // as load stores them
    const int64_t windows = windowCount(n, s);
    const int64_t test = testCountOf(windows, s);
    if (Status splitOk = checkTrainingSplit(windows - test, s.split, params); !splitOk)  // as the load will check
        return splitOk.error();
    shape.sampleCount = loadedSampleCount(windows - test, test, s.split);
    return shape;
}

Result<LoadedDataset> loadTextDataset(const DatasetRequest &request)
{
    DatasetParams params(request);
    Result<TextSettings> settings = readSettings(params);
    if (!settings)
        return settings.error();
    const TextSettings &s = settings.value();
    Sha256 hash;
    Result<std::u32string> read = readText(s, params, &hash);
    if (!read)
        return read.error();
    const std::u32string &text = read.value();
    const int64_t n = int64_t(text.size());
    if (const Status length = checkLength(n, s, params); !length)
        return length.error();
    const Vocabulary vocabulary = vocabularyOf(text);
    std::vector<int64_t> ids(text.size());
    for (size_t i = 0; i < text.size(); ++i)
        ids[i] = vocabulary.ids.at(text[i]);

    // Every window into one array: bytes while the ids fit in one, floats beyond.
    const int64_t windows = windowCount(n, s);
    DataSplit all;
    all.x.sampleShape = {s.window};
    all.x.count = windows;
    all.x.isFloat = vocabulary.names.size() > 256;
    if (all.x.isFloat)
        all.x.floats.resize(size_t(windows * s.window));
    else
        all.x.bytes.resize(size_t(windows * s.window));
    all.y.classification = true;
    all.y.count = windows;
    all.y.classes.resize(size_t(windows));
    for (int64_t w = 0; w < windows; ++w) {
        const int64_t start = w * s.stride;
        for (int64_t j = 0; j < s.window; ++j) {
            const size_t at = size_t(w * s.window + j);
            if (all.x.isFloat)
                all.x.floats[at] = float(ids[size_t(start + j)]);
            else
                all.x.bytes[at] = uint8_t(ids[size_t(start + j)]);
        }
        all.y.classes[size_t(w)] = ids[size_t(start + s.window)];
    }

    const int64_t testCount = testCountOf(windows, s);
    if (testCount >= windows)
        return params.error(QStringLiteral("test_fraction"),
                            QStringLiteral("test_fraction %1 leaves no training windows: it holds out %2 of the %3")
                                .arg(s.testFraction).arg(testCount).arg(windows), s.path);
    // The test windows stay in the drawn order, so that test_limit keeps a sample of the whole text rather than
    // its beginning (a sorted word list starts with its proper names).
    DataSplit test = holdOutTest(all, testCount, s.split.splitSeed, true);
    DataSplit pool = std::move(all);

    LoadedDataset dataset;
    dataset.sourceFiles << s.path;
    dataset.fingerprint = QString::fromLatin1(hash.result().toHex());
    dataset.classNames = vocabulary.names;
    dataset.shape.sampleShape = {s.window};
    dataset.shape.classification = true;
    dataset.shape.numClasses = vocabulary.names.size();
    dataset.shape.classLabels = vocabulary.names;
    SplitSettings split = s.split;
    if (const Status kept = resolveKeptClasses(split, params, dataset.shape); !kept)
        return kept.error();
    if (const Status done = splitTrainValidation(std::move(pool), split, params, kPath, dataset.train, dataset.val); !done)
        return done.error();
    applyTestSettings(test, split);
    dataset.test = std::move(test);
    return dataset;
}

} // namespace ty
