// SweepDialog: each searched row read and checked in the dialog's own words (no command-line flags), the values
// a new row starts with, and what a row's values become when its kind changes.

#include "sweep_dialog.h"

#include "common/canvas_style.h"
#include "preset_overrides.h"
#include "sweep_parameter_list.h"
#include "sweepable_params.h"

#include <QComboBox>
#include <QJsonValue>
#include <QLineEdit>
#include <QSet>
#include <QTableWidget>

#include <algorithm>
#include <cmath>

namespace ty {

namespace {

QString number(double value) { return QString::number(value, 'g', 6); }

// The numbers of a comma-separated list; empty when one item is not a number.
QList<double> numbers(const QStringList &items)
{
    QList<double> out;
    for (const QString &item : items) {
        bool ok = false;
        const double value = item.toDouble(&ok);
        if (!ok || !std::isfinite(value))
            return {};
        out << value;
    }
    return out;
}

QStringList items(const QString &values)
{
    QStringList out;
    for (const QString &item : values.split(QLatin1Char(',')))
        out << item.trimmed();
    return out;
}

} // namespace

QString SweepDialog::valueProblem(const QString &key, const QString &value) const
{
    Preset copy = m_preset;
    const Status applied = applyParamValue(&copy, key, QJsonValue(value), key);
    if (applied)
        return QString();
    const SweepableParam *p = m_list->param(key);
    return applied.error().message + (p ? tr(" (allowed: %1)").arg(allowedRangeText(p->spec)) : QString());
}

Result<SweepDimension> SweepDialog::dimensionAt(int row) const
{
    const QString key = m_table->item(row, KeyColumn) ? m_table->item(row, KeyColumn)->text() : QString();
    const QString kind = kindBox(row)->currentText();
    const QString text = valuesEdit(row)->text();
    if (searchedKeys().indexOf(key) != row)
        return Error(tr("%1 is searched twice: remove one of its rows.").arg(key));
    if (!m_list->param(key) && !flattenParams(m_preset).contains(key))
        return Error(tr("%1: the pipeline has no such parameter; choose one from the list.").arg(key));
    if (text.trimmed().isEmpty())
        return Error(kindTakesRange(kind) ? tr("%1: type the lowest and the highest value to draw from, as “low, high”.").arg(key)
                                          : tr("%1: type the values to try, separated by commas.").arg(key));
    const QStringList values = items(text);
    if (values.contains(QString()))
        return Error(tr("%1: a value is missing between two commas.").arg(key));
    if (!kindTakesRange(kind)) {
        QSet<QString> seen;
        for (const QString &value : values) {
            if (seen.contains(value))
                return Error(tr("%1: %2 is listed twice.").arg(key, value));
            seen.insert(value);
            if (const QString problem = valueProblem(key, value); !problem.isEmpty())
                return Error(problem);
        }
    } else {
        if (values.size() != 2)
            return Error(tr("%1: %2 draws between two values, the lowest and the highest (“low, high”), not %3.")
                             .arg(key, kind, style::counted(values.size(), tr("value"), tr("values"))));
        const QList<double> bounds = numbers(values);
        if (bounds.isEmpty())
            return Error(tr("%1: %2 draws numbers: “%3” is not one.")
                             .arg(key, kind, numbers({values.at(0)}).isEmpty() ? values.at(0) : values.at(1)));
        if (kind == QLatin1String("int") && (bounds.at(0) != std::floor(bounds.at(0)) || bounds.at(1) != std::floor(bounds.at(1))))
            return Error(tr("%1: int draws whole numbers, so its lowest and highest value must be whole numbers too.").arg(key));
        if (kind == QLatin1String("int") ? bounds.at(0) > bounds.at(1) : bounds.at(0) >= bounds.at(1))
            return Error(tr("%1: the lowest value (%2) must be below the highest (%3).").arg(key, values.at(0), values.at(1)));
        if (kind == QLatin1String("loguniform") && bounds.at(0) <= 0)
            return Error(tr("%1: a log-uniform range must start above 0.").arg(key));
        const SweepableParam *p = m_list->param(key);
        if (p && p->spec.type == ParamType::Int && kind != QLatin1String("int"))
            return Error(tr("%1 takes whole numbers: search it with int, grid or choice, not %2.").arg(key, kind));
        for (const QString &value : values)
            if (const QString problem = valueProblem(key, value); !problem.isEmpty())
                return Error(problem);
    }
    const Result<SweepDimension> dim = kind == QLatin1String("grid")
                                           ? parseGridDimension(key + QLatin1Char('=') + text)
                                           : parseRandomDimension(QStringLiteral("%1=%2(%3)").arg(key, kind, text));
    if (!dim)
        return Error(QStringLiteral("%1: %2").arg(key, dim.error().message));
    return dim;
}

QString SweepDialog::trialProblem(const SweepTrial &trial) const
{
    Preset copy = m_preset;
    for (const QString &set : trial.sets) {
        const int eq = int(set.indexOf(QLatin1Char('=')));
        const QString key = set.left(eq);
        if (const Status applied = applyParamValue(&copy, key, QJsonValue(set.mid(eq + 1)), key); !applied)
            return tr("The trial %1 cannot run: %2").arg(sweepTrialName(trial), applied.error().message);
    }
    return QString();
}

QString SweepDialog::suggestion(const QString &key) const
{
    const SweepableParam *p = m_list->param(key);
    const QString current = p ? p->current : flattenParams(m_preset).value(key);
    bool isInt = false, isNumber = false;
    const qint64 whole = current.toLongLong(&isInt);
    const double value = current.toDouble(&isNumber);
    if (!isNumber)
        return current;
    QList<double> candidates;
    if (isInt)
        candidates = whole > 1 ? QList<double>{double(whole / 2), double(whole), double(whole * 2)}
                               : QList<double>{double(whole), double(whole + 1), double(whole + 2)};
    else
        candidates = value > 0 ? QList<double>{value / 10, value, value * 10} : QList<double>{value, 0.1, 1};
    QStringList out;
    for (double candidate : candidates) {
        if (p)
            candidate = std::clamp(candidate, p->spec.minimum, p->spec.maximum);
        const QString text = isInt ? QString::number(qint64(candidate)) : number(candidate);
        if (!out.contains(text))
            out << text;
    }
    return out.join(QStringLiteral(", "));
}

QString SweepDialog::valuesForKind(const QString &values, const QString &kind)
{
    const QList<double> list = numbers(items(values));
    if (!kindTakesRange(kind) || list.size() < 2 || (list.size() == 2 && list.at(0) < list.at(1)))
        return values;
    double low = *std::min_element(list.begin(), list.end());
    double high = *std::max_element(list.begin(), list.end());
    if (kind == QLatin1String("int")) {
        low = std::floor(low);
        high = std::ceil(high);
    }
    return low < high ? QStringLiteral("%1, %2").arg(number(low), number(high)) : values;
}

} // namespace ty
