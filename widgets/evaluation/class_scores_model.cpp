#include "class_scores_model.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace ty {

void ClassScoresModel::setReports(const EvaluationReport &report, const std::optional<EvaluationReport> &other,
                                  const QString &otherLabel)
{
    beginResetModel();
    m_rows = report.perClass;
    m_rows << report.macroAverage << report.weightedAverage;
    m_other = other;
    m_otherLabel = otherLabel;
    endResetModel();
}

int ClassScoresModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ClassScoresModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : (m_other ? DifferenceColumn + 1 : SupportColumn + 1);
}

const ClassScore &ClassScoresModel::scoreAt(int row) const
{
    return m_rows[row];
}

std::optional<ClassScore> ClassScoresModel::otherScoreAt(int row) const
{
    if (!m_other)
        return std::nullopt;
    const int classes = int(m_rows.size()) - 2;
    if (row < classes)
        return row < m_other->perClass.size() ? std::optional<ClassScore>(m_other->perClass[row]) : std::nullopt;
    return row == classes ? m_other->macroAverage : m_other->weightedAverage;
}

QVariant ClassScoresModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const ClassScore &s = scoreAt(index.row());
    const std::optional<ClassScore> other = otherScoreAt(index.row());
    const bool average = index.row() >= int(m_rows.size()) - 2;
    double value = 0;
    switch (index.column()) {
    case ClassColumn:
        if (role == Qt::DisplayRole || role == Qt::UserRole)
            return average ? s.name : QStringLiteral("%1  %2").arg(index.row()).arg(s.name);
        if (role == Qt::FontRole && average) {
            QFont font;
            font.setItalic(true);
            return font;
        }
        return {};
    case PrecisionColumn: value = s.precision; break;
    case RecallColumn: value = s.recall; break;
    case F1Column: value = s.f1; break;
    case SupportColumn:
        if (role == Qt::DisplayRole || role == Qt::UserRole)
            return s.support;
        return role == Qt::TextAlignmentRole ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case OtherF1Column:
        if (!other)
            return {};
        value = other->f1;
        break;
    case DifferenceColumn:
        if (!other)
            return {};
        value = s.f1 - other->f1;
        if (role == Qt::ForegroundRole && std::abs(value) > kNotableDifference)
            return QBrush(value > 0 ? QColor(30, 130, 60) : QColor(190, 40, 40));
        if (role == Qt::DisplayRole)
            return QStringLiteral("%1%2").arg(value > 0 ? QStringLiteral("+") : QString()).arg(value, 0, 'f', 4);
        break;
    default: return {};
    }
    if (role == Qt::DisplayRole)
        return QString::number(value, 'f', 4);
    if (role == Qt::UserRole)
        return value;
    if (role == Qt::TextAlignmentRole)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant ClassScoresModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ClassColumn: return tr("Class");
    case PrecisionColumn: return tr("Precision");
    case RecallColumn: return tr("Recall");
    case F1Column: return tr("F1");
    case SupportColumn: return tr("Support");
    case OtherF1Column: return tr("F1 %1").arg(m_otherLabel);
    case DifferenceColumn: return tr("Δ F1");
    default: return {};
    }
}

} // namespace ty
