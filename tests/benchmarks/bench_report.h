#pragma once
// Collects benchmark figures and prints them as one table (text or markdown).

#include <QHash>
#include <QList>
#include <QString>

namespace ty::bench {

struct Figure {
    QString section;   // "training", "data", ...
    QString name;      // what was measured
    double value = 0;
    QString unit;      // "samples/s", "ms", "x"
    QString target;    // e.g. ">= 0.97"; empty when none
    bool met = true;   // whether the target holds
};

class Report {
public:
    void add(const QString &section, const QString &name, double value, const QString &unit,
             const QString &target = {}, bool met = true);
    // Adds a ratio with a lower bound as target.
    void addRatio(const QString &section, const QString &name, double ratio, double atLeast);
    void print(bool markdown) const;
    int missedTargets() const;
    // Raw values shared between sections (e.g. the time to draw a batch).
    void setValue(const QString &key, double value) { m_values.insert(key, value); }
    double value(const QString &key) const { return m_values.value(key); }

private:
    QList<Figure> m_figures;
    QHash<QString, double> m_values;
};

// Seconds of a monotonic clock.
double now();
// The middle value (the upper one of the two middle values of an even count); 0 for none.
double median(QList<double> values);

} // namespace ty::bench
