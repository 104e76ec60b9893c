#include "report_importance.h"

#include "report_page.h"

namespace ty {

QString importanceSectionBody(const SweepRecord &sweep, const QList<SweepTrialRow> &rows, QJsonObject *data)
{
    // Hook: hyper-parameter importance (issue 42, point 5) is not part of this build yet.
    Q_UNUSED(sweep);
    Q_UNUSED(rows);
    data->insert(QStringLiteral("available"), false);
    return paragraph(QStringLiteral("Parameter importance is not computed by this version of Trainyard."), QStringLiteral("note"));
}

} // namespace ty
