#include "bench_report.h"

#include <QTextStream>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace ty::bench {

double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(QList<double> values)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    return values.at(values.size() / 2);
}

void Report::add(const QString &section, const QString &name, double value, const QString &unit, const QString &target,
                 bool met)
{
    m_figures.append(Figure{section, name, value, unit, target, met});
    std::fprintf(stderr, "  %s / %s: %.4g %s\n", qPrintable(section), qPrintable(name), value, qPrintable(unit));
}

void Report::addRatio(const QString &section, const QString &name, double ratio, double atLeast)
{
    add(section, name, ratio, QStringLiteral("x"), QStringLiteral(">= %1").arg(atLeast), ratio >= atLeast);
}

static QString formatValue(double v)
{
    if (v >= 1000)
        return QString::number(v, 'f', 0);
    if (v >= 10)
        return QString::number(v, 'f', 1);
    return QString::number(v, 'f', 3);
}

void Report::print(bool markdown) const
{
    QTextStream out(stdout);
    if (markdown) {
        out << "| section | figure | value | unit | target | met |\n|---|---|---:|---|---|---|\n";
        for (const Figure &f : m_figures)
            out << "| " << f.section << " | " << f.name << " | " << formatValue(f.value) << " | " << f.unit << " | "
                << (f.target.isEmpty() ? QStringLiteral("") : f.target) << " | "
                << (f.target.isEmpty() ? QStringLiteral("") : f.met ? QStringLiteral("yes") : QStringLiteral("**no**")) << " |\n";
        return;
    }
    out << QStringLiteral("%1  %2  %3  %4  %5\n").arg(QStringLiteral("section").leftJustified(10), QStringLiteral("figure").leftJustified(58),
                                                      QStringLiteral("value").rightJustified(12), QStringLiteral("unit").leftJustified(10),
                                                      QStringLiteral("target"));
    for (const Figure &f : m_figures)
        out << QStringLiteral("%1  %2  %3  %4  %5\n")
                   .arg(f.section.leftJustified(10), f.name.leftJustified(58), formatValue(f.value).rightJustified(12),
                        f.unit.leftJustified(10),
                        f.target.isEmpty() ? QString() : f.target + (f.met ? QStringLiteral("  ok") : QStringLiteral("  MISSED")));
}

int Report::missedTargets() const
{
    int missed = 0;
    for (const Figure &f : m_figures)
        missed += f.met ? 0 : 1;
    return missed;
}

} // namespace ty::bench
