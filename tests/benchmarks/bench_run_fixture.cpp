#include "bench_run_fixture.h"

#include "run_database.h"
#include "run_sqlite.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QSqlQuery>

#include <cmath>
#include <random>

namespace ty::bench {

namespace {

[[noreturn]] void fail(const QString &what)
{
    qFatal("run database fixture: %s", qPrintable(what));
}

QSqlDatabase openConnection(const QString &path)
{
    Result<QSqlDatabase> opened = openRunConnection(uniqueRunConnectionName(QStringLiteral("bench_fixture")), path);
    if (!opened.ok())
        fail(opened.error().toString());
    return opened.value();
}

struct BundledPreset {
    QString shortName;  // "mlp" of fashion-mnist-mlp
    QString json;       // compact, as a run stores it
};

QList<BundledPreset> bundledPresets()
{
    QList<BundledPreset> presets;
    const QDir folder(QStringLiteral(TRAINYARD_SOURCE_DIR "/presets"));
    for (const QFileInfo &file : folder.entryInfoList({QStringLiteral("*.trainyard.json")}, QDir::Files, QDir::Name)) {
        QFile in(file.filePath());
        if (!in.open(QIODevice::ReadOnly))
            continue;
        const QJsonDocument preset = QJsonDocument::fromJson(in.readAll());
        const QString stem = file.fileName().section(QLatin1Char('.'), 0, 0);
        presets.append({stem.section(QLatin1Char('-'), -1), QString::fromUtf8(preset.toJson(QJsonDocument::Compact))});
    }
    if (presets.isEmpty())
        fail(QStringLiteral("no presets in " TRAINYARD_SOURCE_DIR "/presets"));
    return presets;
}

// One table's rows, column by column (QSqlQuery::execBatch binds whole columns).
struct Table {
    QString insert;  // INSERT ... VALUES (?, ...)
    QList<QVariantList> columns;

    explicit Table(const QString &sql) : insert(sql), columns(int(sql.count(QLatin1Char('?')))) {}
    void add(const QVariantList &row)
    {
        for (int c = 0; c < columns.size(); ++c)
            columns[c] << row.value(c);
    }
    void write(const QSqlDatabase &db) const
    {
        QSqlQuery query(db);
        if (!query.prepare(insert))
            fail(query.lastError().text());
        for (const QVariantList &column : columns)
            query.addBindValue(column);
        if (!query.execBatch())
            fail(query.lastError().text());
    }
};

struct FixtureRows {
    Table runs{QStringLiteral("INSERT INTO runs (id, name, status, status_message, preset_json, created_at, started_at,"
                              " ended_at, heartbeat_at, device, seed, notes) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)")};
    Table params{QStringLiteral("INSERT INTO run_params (run_id, key, value) VALUES (?,?,?)")};
    Table metrics{QStringLiteral("INSERT INTO metrics (run_id, name, step, epoch, time, value) VALUES (?,?,?,?,?,?)")};
    Table summaries{QStringLiteral("INSERT INTO metric_summaries (run_id, name, count, min_value, max_value, last_step,"
                                   " last_value) VALUES (?,?,?,?,?,?,?)")};
    Table tags{QStringLiteral("INSERT INTO run_tags (run_id, tag) VALUES (?,?)")};
    std::mt19937_64 rng{11};

    double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng); }
    void addRun(int id, const BundledPreset &preset, const QString &status, const QDateTime &created);
    // 16 train/loss rows, 4 each of val/loss and val/accuracy, one test/accuracy, and their summaries.
    void addMetrics(int id);
};

void FixtureRows::addRun(int id, const BundledPreset &preset, const QString &status, const QDateTime &created)
{
    const double lr = std::pow(10.0, -2.0 - 2.0 * uniform());
    const int batch = 32 << (id % 3);
    const bool started = status != QStringLiteral("queued");
    const QVariant ended = started ? QVariant(toRunDbTime(created.addSecs(600 + id % 2000))) : QVariant();
    runs.add({id, QStringLiteral("%1 lr %2 bs %3").arg(preset.shortName).arg(lr, 0, 'g', 2).arg(batch), status,
              status == QStringLiteral("failed") ? QVariant(QStringLiteral("out of memory on cuda:0")) : QVariant(),
              preset.json, toRunDbTime(created), started ? QVariant(toRunDbTime(created.addSecs(5))) : QVariant(), ended,
              ended, QStringLiteral("cpu"), id,
              id % 7 == 0 ? QVariant(QStringLiteral("tried a wider head; compare with #%1").arg(id - 7)) : QVariant()});
    const QList<std::pair<const char *, QVariant>> values{
        {"opt.lr", lr},          {"training.batch_size", batch}, {"training.epochs", 10}, {"training.seed", id},
        {"fc1.out_features", 256}, {"fc2.out_features", 128},    {"drop.p", 0.2},         {"training.device", "auto"}};
    for (const auto &[key, value] : values)
        params.add({id, QString::fromLatin1(key), value.toString()});
    if (started)
        addMetrics(id);
}

void FixtureRows::addMetrics(int id)
{
    struct Series {
        QString name;
        int rows;
        double start, end;
    };
    const double quality = uniform();
    const Series series[] = {{QStringLiteral("train/loss"), 16, 2.3, 0.2 + 0.3 * quality},
                             {QStringLiteral("val/loss"), 4, 0.9, 0.3 + 0.3 * quality},
                             {QStringLiteral("val/accuracy"), 4, 0.7, 0.92 - 0.1 * quality},
                             {QStringLiteral("test/accuracy"), 1, 0.91 - 0.1 * quality, 0.91 - 0.1 * quality}};
    for (const Series &s : series) {
        double low = INFINITY, high = -INFINITY, last = 0;
        for (int r = 0; r < s.rows; ++r) {
            const double t = s.rows > 1 ? double(r) / (s.rows - 1) : 1.0;
            last = s.start + (s.end - s.start) * t * (0.95 + 0.1 * uniform());
            low = std::min(low, last);
            high = std::max(high, last);
            metrics.add({id, s.name, (r + 1) * 100, (r * 10) / s.rows + 1, (r + 1) * 3.5, last});
        }
        summaries.add({id, s.name, s.rows, low, high, s.rows * 100, last});
    }
}

} // namespace

QString writeRunDatabase(const QString &folder, int runs)
{
    const QString path = folder + QStringLiteral("/runs.sqlite");
    if (Result<std::unique_ptr<RunDatabase>> created = RunDatabase::open(path); !created.ok())
        fail(created.error().toString());

    const QList<BundledPreset> presets = bundledPresets();
    const QStringList tagNames{QStringLiteral("baseline"), QStringLiteral("sweep-lr"), QStringLiteral("augment"),
                               QStringLiteral("paper"), QStringLiteral("ablation"), QStringLiteral("long")};
    const char *const statuses[] = {"finished", "finished", "finished", "finished", "finished",
                                    "finished", "failed",   "stopped",  "interrupted", "diverged"};
    const QDateTime origin = QDateTime::currentDateTimeUtc().addDays(-400);
    FixtureRows rows;
    for (int id = 1; id <= runs; ++id) {
        const QString status = id > runs - 5 ? QStringLiteral("queued") : QString::fromLatin1(statuses[id % 10]);
        rows.addRun(id, presets.at(id % presets.size()), status, origin.addSecs(qint64(id) * 3000));
        if (id % 3 == 0)
            rows.tags.add({id, tagNames.at((id / 3) % tagNames.size())});
    }

    QSqlDatabase db = openConnection(path);
    {
        RunWriteTransaction transaction(db, path);
        if (Status begun = transaction.begin(); !begun.ok())
            fail(begun.error().toString());
        for (const Table *table : {&rows.runs, &rows.params, &rows.metrics, &rows.summaries, &rows.tags})
            table->write(db);
        if (Status committed = transaction.commit(); !committed.ok())
            fail(committed.error().toString());
    }
    closeRunConnection(db);
    return path;
}

} // namespace ty::bench
