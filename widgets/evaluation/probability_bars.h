#pragma once
// Horizontal bars of class probabilities, most probable first: what a dropped file was classified as.
// GUI thread only.

#include <QList>
#include <QPair>
#include <QString>
#include <QWidget>

namespace ty {

class ProbabilityBars : public QWidget {
    Q_OBJECT
public:
    explicit ProbabilityBars(QWidget *parent = nullptr);
    // (class name, probability) pairs, shown in the order given; `title` above them (the input's name).
    void setBars(const QString &title, const QList<QPair<QString, double>> &bars);
    void setMessage(const QString &message);  // instead of bars: a hint, a progress note or an error
    const QList<QPair<QString, double>> &bars() const { return m_bars; }
    QString title() const { return m_title; }
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QString m_title, m_message;
    QList<QPair<QString, double>> m_bars;
};

} // namespace ty
