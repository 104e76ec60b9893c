#include "app_theme.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QPalette>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace ty {

namespace {

const char *const kThemeKey = "appearance/theme";

struct SystemLook {
    QString style;
    QPalette palette;
};

// The style and palette the app started with, remembered before the first theme replaces them.
const SystemLook &systemLook()
{
    static const SystemLook look{QApplication::style()->name(), QApplication::palette()};
    return look;
}

AppTheme g_current = AppTheme::System;

} // namespace

QString themeName(AppTheme theme)
{
    switch (theme) {
    case AppTheme::System: return QStringLiteral("system");
    case AppTheme::Light: return QStringLiteral("light");
    case AppTheme::Dark: return QStringLiteral("dark");
    }
    return QStringLiteral("system");
}

AppTheme themeFromName(const QString &name, bool *ok)
{
    for (AppTheme theme : {AppTheme::System, AppTheme::Light, AppTheme::Dark})
        if (name == themeName(theme)) {
            if (ok)
                *ok = true;
            return theme;
        }
    if (ok)
        *ok = false;
    return AppTheme::System;
}

QPalette darkPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x31));
    p.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::Base, QColor(0x1f, 0x21, 0x24));
    p.setColor(QPalette::AlternateBase, QColor(0x27, 0x29, 0x2d));
    p.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::Button, QColor(0x33, 0x35, 0x3a));
    p.setColor(QPalette::ButtonText, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x8b, 0xf2));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::ToolTipBase, QColor(0x33, 0x35, 0x3a));
    p.setColor(QPalette::ToolTipText, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x8d, 0x93));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x80));
    return p;
}

void applyTheme(AppTheme theme)
{
    const SystemLook &system = systemLook();
    if (theme == AppTheme::System) {
        if (QApplication::style()->name() != system.style)
            QApplication::setStyle(QStyleFactory::create(system.style));
        QApplication::setPalette(system.palette);
    } else {
        if (QApplication::style()->name().compare(QLatin1String("fusion"), Qt::CaseInsensitive) != 0)
            QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(theme == AppTheme::Dark ? darkPalette() : QApplication::style()->standardPalette());
    }
    g_current = theme;
}

AppTheme currentTheme() { return g_current; }

AppTheme savedTheme() { return themeFromName(QSettings().value(QLatin1String(kThemeKey)).toString()); }

void saveTheme(AppTheme theme) { QSettings().setValue(QLatin1String(kThemeKey), themeName(theme)); }

QMenu *addThemeMenu(QMenu *view)
{
    QMenu *menu = view->addMenu(QObject::tr("&Theme"));
    menu->setObjectName(QStringLiteral("themeMenu"));
    auto *group = new QActionGroup(menu);
    const std::pair<AppTheme, QString> choices[] = {{AppTheme::System, QObject::tr("&System")},
                                                    {AppTheme::Light, QObject::tr("&Light")},
                                                    {AppTheme::Dark, QObject::tr("&Dark")}};
    for (const auto &[theme, text] : choices) {
        QAction *a = menu->addAction(text);
        a->setObjectName(QStringLiteral("theme-") + themeName(theme));
        a->setCheckable(true);
        a->setActionGroup(group);
        QObject::connect(a, &QAction::triggered, menu, [theme = theme] {
            applyTheme(theme);
            saveTheme(theme);
        });
    }
    // Checked as it is now, and again each time it opens (--color-scheme may have forced another than the saved one).
    auto check = [menu] {
        for (QAction *a : menu->actions())
            a->setChecked(a->objectName() == QStringLiteral("theme-") + themeName(currentTheme()));
    };
    check();
    QObject::connect(menu, &QMenu::aboutToShow, menu, check);
    return menu;
}

} // namespace ty
