#pragma once
// The per-class table of an evaluation: class, precision, recall, F1, support, then the macro and weighted
// averages; with a second evaluation to compare, its F1 and the difference, coloured where they differ by more
// than kNotableDifference. Sorting is by value (Qt::UserRole holds the number).
//
// GUI thread only.

#include "evaluation_report.h"

#include <QAbstractTableModel>

#include <optional>

namespace ty {

class ClassScoresModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr double kNotableDifference = 0.01;
    enum Column { ClassColumn, PrecisionColumn, RecallColumn, F1Column, SupportColumn, OtherF1Column, DifferenceColumn };

    using QAbstractTableModel::QAbstractTableModel;

    void setReports(const EvaluationReport &report, const std::optional<EvaluationReport> &other, const QString &otherLabel);
    bool comparing() const { return m_other.has_value(); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    const ClassScore &scoreAt(int row) const;
    std::optional<ClassScore> otherScoreAt(int row) const;

    QList<ClassScore> m_rows;  // per class, then macro and weighted averages
    std::optional<EvaluationReport> m_other;
    QString m_otherLabel;
};

} // namespace ty
