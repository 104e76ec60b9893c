#pragma once
// The sections that run and sweep reports share (run_report.cpp, sweep_report_page.cpp): each returns the markup of
// one section's body and adds what it shows to the report's data. Internal to core/reports.

#include "evaluation_report.h"
#include "preset.h"

#include <QJsonObject>
#include <QString>

namespace ty {

// The preset's name, description, blocks, parameters and MACs (core/shapes' estimate), a table of its nodes and the
// picture of its graph. `presetJson` as the run database holds it; `presetFile` resolves relative data paths as
// the run did. A preset that does not load gets its error instead; `data` receives {"name", "blocks", ...}.
QString presetSectionBody(const QJsonObject &presetJson, const QString &presetFile, QJsonObject *data);

// An evaluation's figures, confusion matrix, per-class table and ROC and precision-recall curves.
QString evaluationSectionBody(const EvaluationReport &evaluation);

// A JSON value as indented text in a <pre>.
QString jsonBlock(const QJsonValue &value);

} // namespace ty
