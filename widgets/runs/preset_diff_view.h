#pragma once
// What differs between two runs' presets (diffPresets), one row per difference: kind, where (node or training),
// field, value in A, value in B. Double-clicking a row asks to show its node (nodeActivated).
// Thread affinity: the GUI thread.

#include "preset_diff.h"

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace ty {

class PresetDiffView : public QWidget {
    Q_OBJECT
public:
    explicit PresetDiffView(QWidget *parent = nullptr);

    void showDiff(const QString &titleA, const Preset &a, const QString &titleB, const Preset &b);
    void showMessage(const QString &message);  // instead of a diff
    void showHint();                           // "select two runs ..."
    QList<PresetDifference> differences() const { return m_differences; }
    QTreeWidget *tree() const { return m_tree; }

Q_SIGNALS:
    void nodeActivated(const QString &nodeId);

private:
    QLabel *m_title;
    QTreeWidget *m_tree;
    QList<PresetDifference> m_differences;
};

} // namespace ty
