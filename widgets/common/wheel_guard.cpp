#include "wheel_guard.h"

#include <QAbstractScrollArea>
#include <QCoreApplication>
#include <QEvent>
#include <QWidget>

namespace ty {

namespace {

class WheelGuard final : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() != QEvent::Wheel)
            return false;
        auto *field = qobject_cast<QWidget *>(watched);
        if (!field || field->hasFocus())
            return false;
        for (QWidget *w = field->parentWidget(); w; w = w->parentWidget()) {
            if (auto *area = qobject_cast<QAbstractScrollArea *>(w)) {
                QCoreApplication::sendEvent(area->viewport(), event);
                break;
            }
        }
        return true;  // never to the field itself
    }
};

} // namespace

void takeWheelOnlyWhenFocused(QWidget *field)
{
    static WheelGuard *guard = new WheelGuard(QCoreApplication::instance());
    field->setFocusPolicy(Qt::StrongFocus);
    field->installEventFilter(guard);
}

} // namespace ty
