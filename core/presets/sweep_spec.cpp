#include "sweep_spec.h"


#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QLocale>
#include <QRegularExpression>
#include <QSet>

#include <cmath>

namespace ty {

namespace {

// splitmix64: small, fast, and the same sequence on every platform and compiler (std's distributions are not).
class SweepRandom {
public:
    explicit SweepRandom(quint64 seed) : m_state(seed) {}
    quint64 next()
    {
        quint64 z = (m_state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    double unit() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1), 53 bits

private:
    quint64 m_state;
};

Error dimensionError(const QString &key, const QString &message)
{
    return Error::atField(key, message);
}

bool splitAssignment(const QString &assignment, QString *key, QString *value)
{
    const int eq = assignment.indexOf(QLatin1Char('='));
    if (eq <= 0)
        return false;
    *key = assignment.left(eq).trimmed();
    *value = assignment.mid(eq + 1).trimmed();
    return !key->isEmpty();
}

Result<QStringList> listItems(const QString &key, const QString &text, const QString &what)
{
    if (text.trimmed().isEmpty())
        return dimensionError(key, QStringLiteral("empty range: %1 needs at least one value").arg(what));
    QStringList items;
    QSet<QString> seen;
    for (const QString &raw : text.split(QLatin1Char(','))) {
        const QString item = raw.trimmed();
        if (item.isEmpty())
            return dimensionError(key, QStringLiteral("an empty value in '%1'").arg(text));
        if (seen.contains(item))
            return dimensionError(key, QStringLiteral("the value '%1' is listed twice").arg(item));
        seen.insert(item);
        items.append(item);
    }
    return items;
}

Result<double> bound(const QString &key, const QString &text, const QString &dist)
{
    bool ok = false;
    const double value = text.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(value))
        return dimensionError(key, QStringLiteral("%1: '%2' is not a number").arg(dist, text.trimmed()));
    return value;
}

QString formatSample(const SweepDimension &dim, double value)
{
    if (dim.kind == SweepDistribution::Int)
        return QString::number(qint64(value));
    return QString::number(value, 'g', 6);
}

QString drawValue(const SweepDimension &dim, SweepRandom &random)
{
    const double u = random.unit();
    switch (dim.kind) {
    case SweepDistribution::Uniform:
        return formatSample(dim, dim.low + (dim.high - dim.low) * u);
    case SweepDistribution::LogUniform:
        return formatSample(dim, std::exp(std::log(dim.low) + (std::log(dim.high) - std::log(dim.low)) * u));
    case SweepDistribution::Int:
        return formatSample(dim, dim.low + std::floor(u * (dim.high - dim.low + 1)));
    case SweepDistribution::Choice:
    case SweepDistribution::Grid:
        return dim.values.at(qMin(int(u * dim.values.size()), int(dim.values.size()) - 1));
    }
    return QString();
}

QString valueText(const QJsonValue &value)
{
    if (value.isString())
        return value.toString();
    if (value.isDouble())
        return QString::number(value.toDouble(), 'g', QLocale::FloatingPointShortest);
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    return QString();
}

const QStringList &specKeys()
{
    static const QStringList keys{QStringLiteral("format"), QStringLiteral("version"), QStringLiteral("name"),
                                  QStringLiteral("preset"), QStringLiteral("overlays"), QStringLiteral("set"),
                                  QStringLiteral("grid"), QStringLiteral("random"), QStringLiteral("trials"),
                                  QStringLiteral("parallel"), QStringLiteral("metric"), QStringLiteral("goal"),
                                  QStringLiteral("early_stop"), QStringLiteral("seed")};
    return keys;
}

// Error::inFile with the field first, as the checks below read.
Error fileError(const QString &file, const QString &field, const QString &message) { return Error::inFile(file, message, field); }

} // namespace

Result<SweepDimension> parseGridDimension(const QString &assignment)
{
    SweepDimension dim;
    QString values;
    if (!splitAssignment(assignment, &dim.key, &values))
        return Error(QStringLiteral("--grid '%1': expected KEY=V1,V2,...").arg(assignment));
    Result<QStringList> items = listItems(dim.key, values, QStringLiteral("a grid"));
    if (!items)
        return items.error();
    dim.kind = SweepDistribution::Grid;
    dim.values = items.value();
    dim.text = values;
    return dim;
}

Result<SweepDimension> parseRandomDimension(const QString &assignment)
{
    SweepDimension dim;
    QString text;
    if (!splitAssignment(assignment, &dim.key, &text))
        return Error(QStringLiteral("--random '%1': expected KEY=DIST").arg(assignment));
    dim.text = text;
    static const QRegularExpression call(QStringLiteral("^([a-z_]+)\\s*\\((.*)\\)$"));
    const QRegularExpressionMatch match = call.match(text);
    const QString name = match.hasMatch() ? match.captured(1) : QString();
    const QString args = match.captured(2);
    const QString known = QStringLiteral("uniform(a,b), loguniform(a,b), int(a,b) or choice(x,y,...)");
    if (name == QLatin1String("choice")) {
        Result<QStringList> items = listItems(dim.key, args, QStringLiteral("choice(...)"));
        if (!items)
            return items.error();
        dim.kind = SweepDistribution::Choice;
        dim.values = items.value();
        return dim;
    }
    if (name == QLatin1String("uniform"))
        dim.kind = SweepDistribution::Uniform;
    else if (name == QLatin1String("loguniform"))
        dim.kind = SweepDistribution::LogUniform;
    else if (name == QLatin1String("int"))
        dim.kind = SweepDistribution::Int;
    else
        return dimensionError(dim.key, QStringLiteral("unknown distribution '%1': use %2").arg(text, known));
    const QStringList parts = args.split(QLatin1Char(','));
    if (parts.size() != 2)
        return dimensionError(dim.key, QStringLiteral("%1 takes two bounds, low and high").arg(text));
    Result<double> low = bound(dim.key, parts.at(0), text);
    if (!low)
        return low.error();
    Result<double> high = bound(dim.key, parts.at(1), text);
    if (!high)
        return high.error();
    dim.low = low.value();
    dim.high = high.value();
    if (dim.kind == SweepDistribution::Int) {
        if (dim.low != std::floor(dim.low) || dim.high != std::floor(dim.high) || std::abs(dim.low) > 1e15 || std::abs(dim.high) > 1e15)
            return dimensionError(dim.key, QStringLiteral("%1: the bounds must be integers").arg(text));
        if (dim.low > dim.high)
            return dimensionError(dim.key, QStringLiteral("empty range: %1 needs low <= high").arg(text));
    } else if (!(dim.low < dim.high)) {
        return dimensionError(dim.key, QStringLiteral("empty range: %1 needs low < high").arg(text));
    } else if (dim.kind == SweepDistribution::LogUniform && dim.low <= 0) {
        return dimensionError(dim.key, QStringLiteral("%1: loguniform needs 0 < low").arg(text));
    }
    return dim;
}

QString SweepSpec::effectiveMetric() const
{
    return metric.isEmpty() ? QStringLiteral("val/loss") : metric;
}

bool SweepSpec::maximize() const
{
    if (goal == QLatin1String("maximize"))
        return true;
    if (goal == QLatin1String("minimize"))
        return false;
    return metricIsBetterHigher(effectiveMetric());
}

int SweepSpec::drawsPerGridPoint() const
{
    if (trials > 0)
        return trials;
    return random.isEmpty() ? 1 : 10;
}

QStringList sweepEarlyStopNames()
{
    return {QStringLiteral("none"), QStringLiteral("median"), QStringLiteral("asha")};
}

bool metricIsBetterHigher(const QString &metric)
{
    const QString last = metric.section(QLatin1Char('/'), -1).toLower();
    static const QStringList higher{QStringLiteral("accuracy"), QStringLiteral("precision"), QStringLiteral("recall"),
                                    QStringLiteral("f1"), QStringLiteral("r2")};
    for (const QString &h : higher)
        if (last.contains(h))
            return true;
    return false;
}

Status checkSweepSpec(const SweepSpec &spec)
{
    if (spec.grid.isEmpty() && spec.random.isEmpty())
        return Error::atField(QStringLiteral("grid"), QStringLiteral("nothing to search: give at least one --grid or --random key"));
    QSet<QString> keys;
    for (const QList<SweepDimension> *dims : {&spec.grid, &spec.random})
        for (const SweepDimension &dim : *dims) {
            if (keys.contains(dim.key))
                return Error::atField(dim.key, QStringLiteral("the key is searched twice"));
            keys.insert(dim.key);
        }
    if (spec.trials < 0)
        return Error::atField(QStringLiteral("trials"), QStringLiteral("must be at least 1"));
    if (spec.trials > 1 && spec.random.isEmpty())
        return Error::atField(QStringLiteral("trials"),
                              QStringLiteral("%1 draws need a random key: a grid alone runs each point once (more would repeat "
                                             "the same trial)").arg(spec.trials));
    if (spec.earlyStop != QLatin1String("none") && !spec.effectiveMetric().startsWith(QLatin1String("val/"))
        && spec.effectiveMetric() != QLatin1String("train/loss"))
        return Error::atField(QStringLiteral("metric"),
                              QStringLiteral("early stopping judges each epoch, so it needs a val/ metric or train/loss, not '%1'")
                                  .arg(spec.effectiveMetric()));
    if (spec.parallel < 1 || spec.parallel > 64)
        return Error::atField(QStringLiteral("parallel"), QStringLiteral("must be between 1 and 64"));
    if (!sweepEarlyStopNames().contains(spec.earlyStop))
        return Error::atField(QStringLiteral("early_stop"),
                              QStringLiteral("unknown rule '%1': use none, median or asha").arg(spec.earlyStop));
    if (!spec.goal.isEmpty() && spec.goal != QLatin1String("maximize") && spec.goal != QLatin1String("minimize"))
        return Error::atField(QStringLiteral("goal"), QStringLiteral("'%1': use maximize or minimize").arg(spec.goal));
    qint64 count = spec.drawsPerGridPoint();
    for (const SweepDimension &dim : spec.grid)
        count = qMin<qint64>(count * dim.values.size(), qint64(SweepSpec::kMaxTrials) + 1);
    if (count > SweepSpec::kMaxTrials)
        return Error::atField(QStringLiteral("trials"),
                              QStringLiteral("the sweep has more than %1 trials").arg(SweepSpec::kMaxTrials));
    return Status::success();
}

Result<QList<SweepTrial>> expandSweep(const SweepSpec &spec)
{
    if (Status checked = checkSweepSpec(spec); !checked)
        return checked.error();
    // The grid's points: an odometer over the value lists, the last key changing fastest.
    QList<QStringList> points{QStringList()};
    for (const SweepDimension &dim : spec.grid) {
        QList<QStringList> next;
        for (const QStringList &point : points)
            for (const QString &value : dim.values)
                next.append(point + QStringList{dim.key + QLatin1Char('=') + value});
        points = next;
    }
    SweepRandom random(spec.seed);
    QList<SweepTrial> trials;
    for (const QStringList &point : points)
        for (int draw = 0; draw < spec.drawsPerGridPoint(); ++draw) {
            SweepTrial trial;
            trial.index = int(trials.size());
            trial.sets = point;
            for (const SweepDimension &dim : spec.random)
                trial.sets.append(dim.key + QLatin1Char('=') + drawValue(dim, random));
            trials.append(trial);
        }
    return trials;
}

QString sweepTrialName(const SweepTrial &trial)
{
    return trial.sets.join(QLatin1Char(' '));
}

QJsonObject sweepTrialToJson(const SweepTrial &trial)
{
    return QJsonObject{{QStringLiteral("index"), trial.index}, {QStringLiteral("set"), QJsonArray::fromStringList(trial.sets)}};
}

SweepTrial sweepTrialFromJson(const QJsonObject &json)
{
    SweepTrial trial;
    trial.index = json.value(QStringLiteral("index")).toInt();
    for (const QJsonValue &set : json.value(QStringLiteral("set")).toArray())
        trial.sets.append(set.toString());
    return trial;
}

QJsonObject sweepSpecToJson(const SweepSpec &spec)
{
    QJsonObject json{{QStringLiteral("format"), QStringLiteral("trainyard-sweep")},
                     {QStringLiteral("version"), SweepSpec::kFormatVersion},
                     {QStringLiteral("trials"), spec.drawsPerGridPoint()},
                     {QStringLiteral("parallel"), spec.parallel},
                     {QStringLiteral("metric"), spec.effectiveMetric()},
                     {QStringLiteral("goal"), spec.maximize() ? QStringLiteral("maximize") : QStringLiteral("minimize")},
                     {QStringLiteral("early_stop"), spec.earlyStop},
                     {QStringLiteral("seed"), QString::number(spec.seed)}};
    if (!spec.name.isEmpty())
        json.insert(QStringLiteral("name"), spec.name);
    if (!spec.embeddedPreset.isEmpty())
        json.insert(QStringLiteral("preset"), spec.embeddedPreset);
    else
        json.insert(QStringLiteral("preset"), spec.presetFile);
    if (!spec.overlays.isEmpty())
        json.insert(QStringLiteral("overlays"), QJsonArray::fromStringList(spec.overlays));
    if (!spec.sets.isEmpty())
        json.insert(QStringLiteral("set"), QJsonArray::fromStringList(spec.sets));
    QJsonObject grid, random;
    for (const SweepDimension &dim : spec.grid)
        grid.insert(dim.key, QJsonArray::fromStringList(dim.values));
    for (const SweepDimension &dim : spec.random)
        random.insert(dim.key, dim.text);
    if (!grid.isEmpty())
        json.insert(QStringLiteral("grid"), grid);
    if (!random.isEmpty())
        json.insert(QStringLiteral("random"), random);
    return json;
}

Result<SweepSpec> sweepSpecFromJson(const QJsonObject &json, const QString &file)
{
    for (auto it = json.begin(); it != json.end(); ++it)
        if (!specKeys().contains(it.key()))
            return fileError(file, it.key(), QStringLiteral("unknown field (known: %1)").arg(specKeys().join(QStringLiteral(", "))));
    if (json.value(QStringLiteral("format")).toString() != QLatin1String("trainyard-sweep"))
        return fileError(file, QStringLiteral("format"), QStringLiteral("not a sweep file: \"format\" must be \"trainyard-sweep\""));
    if (json.value(QStringLiteral("version")).toInt(-1) != SweepSpec::kFormatVersion)
        return fileError(file, QStringLiteral("version"),
                         QStringLiteral("unsupported version (this build reads version %1)").arg(SweepSpec::kFormatVersion));
    const QDir dir = QFileInfo(file).absoluteDir();
    SweepSpec spec;
    spec.name = json.value(QStringLiteral("name")).toString();
    const QJsonValue preset = json.value(QStringLiteral("preset"));
    if (preset.isObject()) {
        spec.embeddedPreset = preset.toObject();
        spec.presetFile = QFileInfo(file).absoluteFilePath();
    } else if (preset.isString() && !preset.toString().isEmpty()) {
        spec.presetFile = QDir::cleanPath(dir.absoluteFilePath(preset.toString()));
    } else {
        return fileError(file, QStringLiteral("preset"), QStringLiteral("a preset path or an embedded preset object is required"));
    }
    const auto stringList = [&](const QString &field, QStringList *out, bool paths) -> Status {
        const QJsonValue value = json.value(field);
        if (value.isUndefined())
            return Status::success();
        if (!value.isArray())
            return fileError(file, field, QStringLiteral("must be an array of strings"));
        for (const QJsonValue &item : value.toArray()) {
            if (!item.isString())
                return fileError(file, field, QStringLiteral("must be an array of strings"));
            out->append(paths ? QDir::cleanPath(dir.absoluteFilePath(item.toString())) : item.toString());
        }
        return Status::success();
    };
    if (Status s = stringList(QStringLiteral("overlays"), &spec.overlays, true); !s)
        return s.error();
    if (Status s = stringList(QStringLiteral("set"), &spec.sets, false); !s)
        return s.error();
    const QJsonValue grid = json.value(QStringLiteral("grid"));
    if (!grid.isUndefined() && !grid.isObject())
        return fileError(file, QStringLiteral("grid"), QStringLiteral("must map keys to arrays of values"));
    const QJsonObject gridObject = grid.toObject();
    for (auto it = gridObject.begin(); it != gridObject.end(); ++it) {
        const QString field = QStringLiteral("grid.") + it.key();
        if (!it.value().isArray())
            return fileError(file, field, QStringLiteral("must be an array of values"));
        QStringList values;
        for (const QJsonValue &v : it.value().toArray()) {
            const QString text = valueText(v);
            if (text.isEmpty())
                return fileError(file, field, QStringLiteral("values must be numbers, strings or booleans"));
            values.append(text);
        }
        Result<SweepDimension> dim = parseGridDimension(it.key() + QLatin1Char('=') + values.join(QLatin1Char(',')));
        if (!dim)
            return fileError(file, field, dim.error().message);
        spec.grid.append(dim.value());
    }
    const QJsonValue random = json.value(QStringLiteral("random"));
    if (!random.isUndefined() && !random.isObject())
        return fileError(file, QStringLiteral("random"), QStringLiteral("must map keys to distributions"));
    const QJsonObject randomObject = random.toObject();
    for (auto it = randomObject.begin(); it != randomObject.end(); ++it) {
        const QString field = QStringLiteral("random.") + it.key();
        if (!it.value().isString())
            return fileError(file, field, QStringLiteral("must be a distribution such as \"loguniform(1e-4,1e-1)\""));
        Result<SweepDimension> dim = parseRandomDimension(it.key() + QLatin1Char('=') + it.value().toString());
        if (!dim)
            return fileError(file, field, dim.error().message);
        spec.random.append(dim.value());
    }
    const auto integer = [&](const QString &field, int low, int *out) -> Status {
        const QJsonValue value = json.value(field);
        if (value.isUndefined())
            return Status::success();
        const double number = value.toDouble(-1e18);
        if (!value.isDouble() || number != std::floor(number) || number < low || number > 1e6)
            return fileError(file, field, QStringLiteral("must be an integer of at least %1").arg(low));
        *out = int(number);
        return Status::success();
    };
    if (Status s = integer(QStringLiteral("trials"), 1, &spec.trials); !s)
        return s.error();
    if (Status s = integer(QStringLiteral("parallel"), 1, &spec.parallel); !s)
        return s.error();
    spec.metric = json.value(QStringLiteral("metric")).toString();
    spec.goal = json.value(QStringLiteral("goal")).toString();
    spec.earlyStop = json.value(QStringLiteral("early_stop")).toString(QStringLiteral("none"));
    const QJsonValue seed = json.value(QStringLiteral("seed"));
    if (!seed.isUndefined()) {
        bool ok = false;
        if (seed.isString()) {
            spec.seed = seed.toString().toULongLong(&ok);
        } else {
            const double number = seed.toDouble(-1);
            ok = seed.isDouble() && number >= 0 && number <= 9007199254740992.0 && number == std::floor(number);
            spec.seed = ok ? quint64(number) : 0;
        }
        if (!ok)
            return fileError(file, QStringLiteral("seed"), QStringLiteral("must be a non-negative integer"));
    }
    if (Status checked = checkSweepSpec(spec); !checked)
        return fileError(file, checked.error().field, checked.error().message);
    return spec;
}

} // namespace ty
