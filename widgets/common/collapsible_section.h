#pragma once
// A titled section that folds: a header button (arrow, bold title, a muted note such as "2 set") over a body
// widget that shows only while the section is open. Whether it is open is remembered in QSettings under
// `settingsKey` when one is given, so a section the user opened stays open in the next session.
// Ownership: owns its header; the body is reparented to it. Thread affinity: the GUI thread.

#include <QWidget>

class QToolButton;
class QLabel;

namespace ty {

class CollapsibleSection : public QWidget {
    Q_OBJECT
public:
    CollapsibleSection(const QString &title, QWidget *body, bool openByDefault, const QString &settingsKey = QString(),
                       QWidget *parent = nullptr);

    bool isOpen() const;
    void setOpen(bool open);  // remembered like a click
    void setNote(const QString &note);  // beside the title, muted; empty hides it
    QString title() const { return m_title; }
    QString note() const;
    QWidget *body() const { return m_body; }
    QToolButton *header() const { return m_header; }

Q_SIGNALS:
    void toggled(bool open);

private:
    void apply(bool open);

    QString m_title;
    QString m_settingsKey;
    QToolButton *m_header;
    QLabel *m_note;
    QWidget *m_body;
    bool m_open = false;
};

} // namespace ty
