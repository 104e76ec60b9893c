#pragma once
// The Sweep dialog's list of what can be searched: the preset's numeric parameters (sweepable_params.h) under
// their node ("fc1 · Linear", then "training"), each with its current value and allowed range, the parameter's
// doc as tooltip. Double-click or Enter on a parameter chooses it (parameterChosen). Read-only; it never edits
// the preset.
//
// Ownership: owns its items. Thread affinity: the GUI thread.

#include "preset.h"
#include "sweepable_params.h"

#include <QTreeWidget>

namespace ty {

class SweepParameterList : public QTreeWidget {
    Q_OBJECT
public:
    enum Column { NameColumn, CurrentColumn, RangeColumn };

    explicit SweepParameterList(const Preset &preset, QWidget *parent = nullptr);

    // The parameter with this key ("fc1.out_features"), or nullptr when the list has none.
    const SweepableParam *param(const QString &key) const;
    const QList<SweepableParam> &params() const { return m_params; }
    // The key of the selected parameter ("" when a node or nothing is selected); selects one and shows it.
    QString currentKey() const;
    bool selectKey(const QString &key);
    // Marks the keys being searched (in bold, "searched" in the tooltip).
    void setSearchedKeys(const QStringList &keys);
    QTreeWidgetItem *itemOf(const QString &key) const;

Q_SIGNALS:
    void parameterChosen(const QString &key);

private:
    QList<SweepableParam> m_params;
};

} // namespace ty
