#pragma once
// Texts of a run's lineage, from its parent record (RunSummaryRow::parent, provenance.init_from): what the run
// browser's "From" column shows, its tooltip, and the line under the actions with a link to the parent run.
// Plain functions; any thread.

#include <QJsonObject>
#include <QString>

namespace ty {

// "#12" for a run, the file's name for a weights file, "" when trained from scratch.
QString parentShortText(const QJsonObject &parent);
// "Started from run #12 “baseline”, checkpoint best (step 1720), sha256 …" or "Started from the weights file
// PATH, sha256 …", with the copied nodes when chosen; "" when trained from scratch.
QString parentDescription(const QJsonObject &parent);
// The same as rich text, the sha256 shortened, with the run as a link "run:12" (the run browser selects it when
// clicked).
QString parentDescriptionHtml(const QJsonObject &parent);
// "Imported with map sequential (strict): 6 copied, 1 skipped, 0 missing, 0 mismatched" from the parent's import
// report (parent.import, its counts); "" without one.
QString importSummary(const QJsonObject &parent);
// The import report's tensors, one line each ("copied fc1.weight [16, 8] ← 1.weight F32 [16, 8]"), at most
// `maxLines` then "… and N more"; "" without a report. The run browser's summaries carry only the counts: this
// takes the whole report (RunInfo::provenance's init_from).
QString importDetails(const QJsonObject &parent, int maxLines = 40);

} // namespace ty
