#include "training_ui_support.h"

#include "evaluation_records.h"
#include "preset_format.h"
#include "run_writer.h"

#include <QJsonObject>

namespace tytest {

QString workerPath() { return QStringLiteral(TRAINYARD_CLI_PATH); }

namespace {

ty::Node node(const QString &id, const QString &block, const QJsonObject &params = {})
{
    ty::Node n;
    n.id = id;
    n.block = block;
    n.params = params;
    return n;
}

ty::Edge edge(const QString &from, const QString &to)
{
    ty::Edge e;
    ty::Endpoint::parse(from, &e.from);
    ty::Endpoint::parse(to, &e.to);
    return e;
}

} // namespace

ty::Preset tinyPreset(int epochs, int samples)
{
    ty::Preset p;
    p.name = QStringLiteral("tiny blobs");
    p.graph.nodes = {node(QStringLiteral("data"), QStringLiteral("dataset.synthetic"),
                          {{QStringLiteral("samples"), samples}, {QStringLiteral("test_samples"), 128},
                           {QStringLiteral("features"), 8}, {QStringLiteral("classes"), 4}}),
                     node(QStringLiteral("fc1"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 16}}),
                     node(QStringLiteral("act"), QStringLiteral("layer.relu")),
                     node(QStringLiteral("fc2"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 4}}),
                     node(QStringLiteral("loss"), QStringLiteral("loss.cross_entropy")),
                     node(QStringLiteral("accuracy"), QStringLiteral("metric.accuracy")),
                     node(QStringLiteral("opt"), QStringLiteral("optimizer.sgd"), {{QStringLiteral("lr"), 0.1}})};
    p.graph.edges = {edge(QStringLiteral("data.features"), QStringLiteral("fc1.in")),
                     edge(QStringLiteral("fc1.out"), QStringLiteral("act.in")),
                     edge(QStringLiteral("act.out"), QStringLiteral("fc2.in")),
                     edge(QStringLiteral("fc2.out"), QStringLiteral("loss.input")),
                     edge(QStringLiteral("data.target"), QStringLiteral("loss.target")),
                     edge(QStringLiteral("fc2.out"), QStringLiteral("accuracy.input")),
                     edge(QStringLiteral("data.target"), QStringLiteral("accuracy.target")),
                     edge(QStringLiteral("loss.loss"), QStringLiteral("opt.loss"))};
    p.training = QJsonObject{{QStringLiteral("epochs"), epochs}, {QStringLiteral("batch_size"), 32},
                             {QStringLiteral("seed"), 1}, {QStringLiteral("device"), QStringLiteral("cpu")},
                             {QStringLiteral("deterministic"), true}, {QStringLiteral("threads"), 1},
                             {QStringLiteral("log_every"), 4}};
    return p;
}

ty::Preset brokenPreset()
{
    ty::Preset p = tinyPreset();
    p.graph.node(QStringLiteral("fc2"))->params.insert(QStringLiteral("out_features"), 3);
    return p;
}

bool RunsFixture::open()
{
    path = dir.filePath(QStringLiteral("runs.sqlite"));
    auto opened = ty::RunDatabase::open(path);
    if (!opened.ok())
        return false;
    db = std::move(opened.value());
    path = db->path();
    return true;
}

qint64 RunsFixture::createRun(const QString &name, const QJsonObject &provenance, const std::optional<ty::Preset> &given)
{
    ty::Preset preset = given ? *given : tinyPreset();
    if (!given)
        preset.name = name;
    ty::NewRun run;
    run.name = name;
    run.preset = ty::presetToJson(preset);
    run.presetHash = ty::presetHash(preset);
    run.params = ty::flattenParams(preset);
    run.device = QStringLiteral("cpu");
    run.provenance = provenance;
    return db->createRun(run).value();
}

qint64 RunsFixture::addRun(const QString &name, ty::RunStatus status, int steps, const QStringList &tags,
                           const QString &presetName)
{
    ty::Preset preset = tinyPreset();
    preset.name = presetName.isEmpty() ? name : presetName;
    const qint64 id = createRun(name, {}, preset);
    if (!tags.isEmpty())
        db->setTags(id, tags);
    ty::RunWriter writer(path, id, 3600 * 1000);
    if (!writer.start().ok())
        return 0;
    QList<ty::MetricPoint> rows;
    for (int step = 1; step <= steps; ++step) {
        rows.append({QStringLiteral("train/loss"), step, 1 + (step - 1) / 10, step * 0.01, 1.0 / step});
        if (step % 10 == 0)
            rows.append({QStringLiteral("val/accuracy"), step, step / 10, step * 0.01, step / 1000.0});
    }
    writer.appendMetrics(rows);
    if (status == ty::RunStatus::Running) {
        writer.flush();
        // Leave it running: a writer destroyed unfinished marks its run interrupted, so set it back.
        writer.finish(ty::RunStatus::Running);
        return id;
    }
    writer.finish(status, status == ty::RunStatus::Failed ? QStringLiteral("it broke") : QString(),
                  status == ty::RunStatus::Failed ? QStringLiteral("fc1") : QString());
    return id;
}

qint64 addClassificationEvaluation(ty::RunDatabase &db, qint64 runId, const ty::EvaluationReport &report)
{
    return db.addEvaluation(ty::evaluationRecordOf(runId, report, 20), {}).value();
}

QPalette darkPalette()
{
    QPalette p;
    p.setColor(QPalette::Base, QColor(0x1f, 0x21, 0x24));
    p.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x31));
    p.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::PlaceholderText, QColor(0xa0, 0xa0, 0xa0));
    return p;
}

QPalette lightPalette()
{
    QPalette p;
    p.setColor(QPalette::Base, Qt::white);
    p.setColor(QPalette::Window, QColor(0xef, 0xef, 0xef));
    p.setColor(QPalette::Text, Qt::black);
    p.setColor(QPalette::PlaceholderText, QColor(0x60, 0x60, 0x60));
    return p;
}

} // namespace tytest
