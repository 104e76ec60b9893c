#include "weight_import.h"

#include "composite_expansion.h"
#include "weight_name_maps.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QSet>

namespace ty {

namespace {

const QString kField = QStringLiteral("training.init_from");

bool isFloating(TensorDType dtype)
{
    return dtype == TensorDType::F64 || dtype == TensorDType::F32 || dtype == TensorDType::F16 || dtype == TensorDType::BF16;
}

QString leafOf(const QString &name) { return name.section(QLatin1Char('.'), -1); }

SampleShape shapeOf(const NamedTensor &t) { return SampleShape(t.shape.cbegin(), t.shape.cend()); }

// A Trainyard checkpoint's training state (optimizer moments, data order) is no part of a warm start.
bool isTrainingState(const QString &name)
{
    return name.startsWith(QLatin1String("optimizer/")) || name.startsWith(QLatin1String("trainyard/"));
}

Error importError(const WeightImportRequest &request, const QString &message, const QString &node = {}, const QString &field = {})
{
    Error e;
    e.file = request.file;
    e.node = node;
    e.field = field.isEmpty() ? kField : field;
    e.message = QStringLiteral("init_from: %1").arg(message);
    return e;
}

QJsonArray shapeJson(const SampleShape &shape)
{
    QJsonArray a;
    for (int64_t d : shape)
        a.append(double(d));
    return a;
}

QJsonObject entryJson(const ImportEntry &e)
{
    QJsonObject o;
    if (!e.tensor.isEmpty()) {
        o.insert(QStringLiteral("tensor"), e.tensor);
        o.insert(QStringLiteral("shape"), shapeJson(e.shape));
        o.insert(QStringLiteral("dtype"), e.dtype);
    }
    if (!e.fileTensor.isEmpty()) {
        o.insert(QStringLiteral("file_tensor"), e.fileTensor);
        o.insert(QStringLiteral("file_shape"), shapeJson(e.fileShape));
        o.insert(QStringLiteral("file_dtype"), e.fileDtype);
    }
    if (!e.reason.isEmpty())
        o.insert(QStringLiteral("reason"), e.reason);
    return o;
}

// "fc1.weight <- 1.weight F32 [16, 8]", "5.num_batches_tracked I64 []: ..." as the report's lines show an entry.
QString entryText(const ImportEntry &e)
{
    QString text;
    if (!e.tensor.isEmpty())
        text = e.tensor + QLatin1Char(' ') + shapeText(e.shape);
    if (!e.fileTensor.isEmpty()) {
        const QString file = QStringLiteral("%1 %2 %3").arg(e.fileTensor, e.fileDtype, shapeText(e.fileShape));
        text = text.isEmpty() ? file : text + QStringLiteral(" <- ") + file;
    }
    if (!e.reason.isEmpty())
        text += QStringLiteral(": ") + e.reason;
    return text;
}

} // namespace

bool isTrainyardWeights(const TensorFile &header)
{
    const QString format = header.metadata.value(QStringLiteral("format"));
    return format == QLatin1String("trainyard-checkpoint") || format == QLatin1String("trainyard-weights");
}

bool isRunningStatistic(const QString &leaf)
{
    return leaf == QLatin1String("running_mean") || leaf == QLatin1String("running_var");
}

QString ImportReport::summary() const
{
    return QStringLiteral("%1 copied, %2 skipped, %3 missing, %4 mismatched")
        .arg(copied.size()).arg(skipped.size()).arg(missing.size()).arg(mismatched.size());
}

QStringList ImportReport::lines() const
{
    QStringList out{QStringLiteral("import from %1 (map %2%3): %4")
                        .arg(QFileInfo(file).fileName(), map, strict ? QStringLiteral(", strict") : QString(), summary())};
    const auto add = [&](const char *label, const QList<ImportEntry> &entries) {
        for (const ImportEntry &e : entries)
            out << QStringLiteral("  %1 %2").arg(QString::fromLatin1(label).leftJustified(10), entryText(e));
    };
    add("copied", copied);
    add("skipped", skipped);
    add("missing", missing);
    add("mismatched", mismatched);
    return out;
}

QJsonObject ImportReport::toJson() const
{
    const auto list = [](const QList<ImportEntry> &entries) {
        QJsonArray a;
        for (const ImportEntry &e : entries)
            a.append(entryJson(e));
        return a;
    };
    return QJsonObject{{QStringLiteral("file"), file}, {QStringLiteral("map"), map}, {QStringLiteral("strict"), strict},
                       {QStringLiteral("counts"), QJsonObject{{QStringLiteral("copied"), int(copied.size())},
                                                              {QStringLiteral("skipped"), int(skipped.size())},
                                                              {QStringLiteral("missing"), int(missing.size())},
                                                              {QStringLiteral("mismatched"), int(mismatched.size())}}},
                       {QStringLiteral("copied"), list(copied)}, {QStringLiteral("skipped"), list(skipped)},
                       {QStringLiteral("missing"), list(missing)}, {QStringLiteral("mismatched"), list(mismatched)}};
}

Result<WeightImportPlan> planWeightImport(const QList<ModelTensor> &model, const TensorFile &header, const WeightImportRequest &request)
{
    const bool own = !request.map.given();
    if (own && !isTrainyardWeights(header)) {
        return importError(request, QStringLiteral("not a Trainyard checkpoint or weights file; for another tool's file, say how it "
                                                       "names its tensors with \"map\": %1, or {\"fc1.weight\": \"0.weight\", ...} "
                                                       "(docs/import.md)").arg(nameConventionList()));
    }
    // Which file tensor each network tensor takes, by the names alone.
    Result<NamePairing> paired = NamePairing();
    if (own) {
        paired = sameNamePairing(model, header);
    } else if (request.map.isExplicit()) {
        paired = explicitPairing(request.map.pairs, model, header);
    } else if (const NameConvention *convention = findNameConvention(request.map.convention)) {
        paired = convention->pair(model, header);
    } else {
        return importError(request, QStringLiteral("map \"%1\" is not a convention Trainyard knows (%2), nor an object of tensor names")
                                        .arg(request.map.convention, nameConventionList()),
                           {}, kField + QStringLiteral(".map"));
    }
    if (!paired)
        return importError(request, paired.error().message, {}, paired.error().field);
    const NamePairing &pairing = paired.value();

    // The units copied whole or not at all: each listed node; else a top-level node for Trainyard's own files (as
    // they always were) and a layer for another tool's.
    const bool listed = !request.nodes.isEmpty();
    const auto unitOf = [&](const ModelTensor &t) {
        if (listed) {
            for (const QString &node : request.nodes)
                if (isWithinAny(t.layer, {node}))
                    return node;
            return QString();
        }
        return own ? topLevelNode(t.layer) : t.layer;
    };
    QStringList units;
    QHash<QString, QList<int>> tensorsOfUnit;
    for (int m = 0; m < model.size(); ++m) {
        const QString unit = unitOf(model[m]);
        if (!tensorsOfUnit.contains(unit))
            units << unit;
        tensorsOfUnit[unit] << m;
    }
    QSet<QString> mappedNames, mappedUnits;  // an explicit map's tensors and their units
    for (const auto &pair : request.map.pairs)
        mappedNames.insert(pair.first);
    for (const ModelTensor &t : model)
        if (mappedNames.contains(t.name))
            mappedUnits.insert(unitOf(t));

    WeightImportPlan plan;
    ImportReport &report = plan.report;
    report.file = request.file;
    report.map = request.map.describe();
    report.strict = request.strict;
    for (const QString &node : request.nodes)
        if (!tensorsOfUnit.contains(node)) {
            if (request.strict)
                return importError(request, QStringLiteral("%1 has no parameters or buffers to copy").arg(node), node);
            plan.notCopied << QStringLiteral("%1: has no parameters").arg(node);
        }
    QSet<int> accounted;  // file tensors in an entry
    for (const QString &unit : units) {
        const QList<int> &tensors = tensorsOfUnit[unit];
        const bool attempted = listed ? !unit.isEmpty() : own || !request.map.isExplicit() || mappedUnits.contains(unit);
        if (!attempted) {
            for (int m : tensors)
                report.missing << ImportEntry{model[m].name, {}, model[m].shape, {}, tensorDTypeName(model[m].dtype), {},
                                              listed ? QStringLiteral("not among init_from.nodes") : pairing.missingReason.value(m)};
            continue;
        }
        const bool required = listed || !own;
        QList<ImportEntry> fits, missing, mismatched;
        QString problem;
        for (int m : tensors) {
            const ModelTensor &t = model[m];
            const int f = pairing.source[size_t(m)];
            ImportEntry entry{t.name, {}, t.shape, {}, tensorDTypeName(t.dtype), {}, {}};
            if (f < 0) {
                entry.reason = pairing.missingReason.value(m);
                if (problem.isEmpty())
                    problem = own ? QStringLiteral("%1 is not in the file").arg(t.name)
                                  : QStringLiteral("%1 %2 has no tensor in the file (%3)").arg(t.name, shapeText(t.shape), entry.reason);
                missing << entry;
                continue;
            }
            const NamedTensor &source = header.tensors[f];
            entry.fileTensor = source.name;
            entry.fileShape = shapeOf(source);
            entry.fileDtype = tensorDTypeName(source.dtype);
            const bool dtypeFits = isFloating(t.dtype) ? isFloating(source.dtype) : source.dtype == t.dtype;
            if (!dtypeFits || entry.fileShape != t.shape) {
                if (problem.isEmpty())
                    problem = source.name == t.name
                                  ? QStringLiteral("%1 is %2 %3 there, %4 %5 here").arg(t.name, entry.fileDtype, shapeText(entry.fileShape),
                                                                                       entry.dtype, shapeText(t.shape))
                                  : QStringLiteral("%1 is %2 %3 here, but the file's %4 is %5 %6")
                                        .arg(t.name, entry.dtype, shapeText(t.shape), source.name, entry.fileDtype, shapeText(entry.fileShape));
                entry.reason = dtypeFits ? QStringLiteral("other shape") : QStringLiteral("not a floating-point tensor");
                mismatched << entry;
                continue;
            }
            fits << entry;
        }
        const QString shownUnit = QString(unit).replace(QLatin1Char('/'), QLatin1Char('.'));
        if (!problem.isEmpty()) {
            if (required && request.strict)
                return importError(request, problem, unit);
            plan.notCopied << QStringLiteral("%1: %2").arg(shownUnit, problem);
            report.missing += missing;
            report.mismatched += mismatched;
            for (int m : tensors)
                if (pairing.source[size_t(m)] >= 0)
                    accounted.insert(pairing.source[size_t(m)]);
            for (ImportEntry e : fits) {
                e.reason = QStringLiteral("%1 is not copied: %2").arg(shownUnit, problem);
                const ImportEntry fileSide{{}, e.fileTensor, {}, e.fileShape, {}, e.fileDtype, e.reason};
                report.skipped << fileSide;
            }
            continue;
        }
        for (int m : tensors) {
            plan.copies.emplace_back(m, pairing.source[size_t(m)]);
            accounted.insert(pairing.source[size_t(m)]);
        }
        report.copied += fits;
        plan.copiedNodes << shownUnit;
    }
    // The file's tensors that nothing took.
    for (int f = 0; f < header.tensors.size(); ++f) {
        const NamedTensor &t = header.tensors[f];
        if (accounted.contains(f) || (isTrainyardWeights(header) && isTrainingState(t.name)))
            continue;
        QString reason = pairing.skippedReason.value(f);
        if (leafOf(t.name) == QLatin1String("num_batches_tracked"))
            reason = QStringLiteral("batch norm's count of batches, not needed");
        else if (reason.isEmpty())
            reason = !isFloating(t.dtype) && !own ? QStringLiteral("not a floating-point tensor")
                     : own || request.map.convention == QLatin1String("names") ? QStringLiteral("no tensor of this network has this name")
                                                                                : QStringLiteral("the map gives it to no tensor of this network");
        report.skipped << ImportEntry{{}, t.name, {}, shapeOf(t), {}, tensorDTypeName(t.dtype), reason};
    }
    if (plan.copies.empty()) {
        if (own)
            return importError(request, QStringLiteral("no node of this network matches the file%1")
                                            .arg(plan.notCopied.isEmpty() ? QString() : QStringLiteral(" (") + plan.notCopied.join(QStringLiteral("; ")) + QLatin1Char(')')));
        QStringList problems = plan.notCopied;
        for (const ImportEntry &e : report.missing.mid(0, 3))
            problems << QStringLiteral("%1: %2").arg(e.tensor, e.reason);
        return importError(request, QStringLiteral("nothing in the file fits this network with map %1%2").arg(report.map)
                                        .arg(problems.isEmpty() ? QString() : QStringLiteral(" (") + problems.mid(0, 3).join(QStringLiteral("; ")) + QLatin1Char(')')));
    }
    return plan;
}

std::optional<QList<ModelTensor>> plannedModelTensors(const PipelinePlan &plan)
{
    QList<ModelTensor> tensors;
    for (const PlannedOp &op : plan.ops) {
        if (op.shape.params > 0 && op.shape.tensors.empty())
            return std::nullopt;
        for (const LayerTensor &t : op.shape.tensors)
            tensors.append(ModelTensor{tensorName(op.nodeId, t.name), op.nodeId, t.name, t.shape, TensorDType::F32});
    }
    return tensors;
}

Issues weightImportIssues(const InitFrom &init, const PipelinePlan &plan)
{
    if (!init.map.given() || init.file.isEmpty())
        return {};
    const auto issueOf = [](const Error &e, const QString &file) {
        return Issue{Severity::Error, QStringLiteral("%1 (%2)").arg(e.message, QFileInfo(file).fileName()), e.node, {},
                     e.field.isEmpty() ? kField : e.field};
    };
    if (!init.map.isExplicit() && !findNameConvention(init.map.convention))
        return {};  // trainingSectionIssues says so
    const std::optional<QList<ModelTensor>> model = plannedModelTensors(plan);
    if (!model)
        return {};
    const Result<TensorFile> header = readSafetensorsHeader(init.file);
    if (!header)
        return {};  // the file's own problem is reported with training.init_from.file
    const Result<WeightImportPlan> planned = planWeightImport(*model, header.value(), WeightImportRequest{init.file, init.map, init.nodes, init.strict});
    if (!planned)
        return {issueOf(planned.error(), init.file)};
    return {};
}

} // namespace ty
