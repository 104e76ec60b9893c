// Where the main window opens when its saved geometry does not fit the screen it opens on: a smaller screen or a
// larger scale factor shrinks and centres it, one sticking out moves back inside, one that fits is left alone.

#include "test_suite.h"
#include "window_geometry.h"

#include <QtTest>

using namespace ty;

class TestWindowGeometry : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fitsAreLeftAlone();
    void tooLargeShrinksAndCentres();
    void stickingOutMovesBackInside();
    void mostlyOffScreenIsCentred();
    void everyCaseEndsInside();
};

void TestWindowGeometry::fitsAreLeftAlone()
{
    const QRect screen(0, 0, 1600, 1000);
    const QRect window(100, 80, 1400, 880);
    QCOMPARE(fitWindowToScreen(window, screen, QMargins(1, 30, 1, 1)), window);
}

void TestWindowGeometry::tooLargeShrinksAndCentres()
{
    // Saved at 1400x880 on a large screen; now a 1280x720 screen (its panel takes 40 pixels at the top).
    const QRect screen(0, 40, 1280, 680);
    const QMargins frame(2, 28, 2, 2);
    const QRect fitted = fitWindowToScreen(QRect(200, 100, 1400, 880), screen, frame);
    QCOMPARE(fitted.size(), QSize(1280 - 4, 680 - 30));
    QVERIFY(screen.contains(fitted.marginsAdded(frame)));
    // Only the too-large side shrinks; the other keeps its size and the window is centred.
    const QRect tall = fitWindowToScreen(QRect(0, 0, 800, 1200), QRect(0, 0, 1920, 1080));
    QCOMPARE(tall.size(), QSize(800, 1080));
    QCOMPARE(tall.center().x(), QRect(0, 0, 1920, 1080).center().x());
    // Geometry saved at scale 1 on a 3200-pixel-wide screen, restored at scale 2 (1600 logical pixels).
    const QRect scaled = fitWindowToScreen(QRect(400, 200, 2400, 1500), QRect(0, 0, 1600, 900));
    QCOMPARE(scaled, QRect(0, 0, 1600, 900));
}

void TestWindowGeometry::stickingOutMovesBackInside()
{
    const QRect screen(0, 0, 1600, 1000);
    const QRect fitted = fitWindowToScreen(QRect(500, 300, 1200, 700), screen);
    QCOMPARE(fitted.size(), QSize(1200, 700));
    QCOMPARE(fitted.topLeft(), QPoint(400, 300));  // moved left by what stuck out, not re-centred
    // On a second screen to the right (its origin is not 0).
    const QRect second(1600, 0, 1920, 1080);
    QCOMPARE(fitWindowToScreen(QRect(1500, 100, 800, 600), second).topLeft(), QPoint(1600, 100));
}

void TestWindowGeometry::mostlyOffScreenIsCentred()
{
    // Saved on a screen that is no longer there.
    const QRect screen(0, 0, 1600, 1000);
    const QRect fitted = fitWindowToScreen(QRect(3000, 200, 1000, 600), screen);
    QCOMPARE(fitted.size(), QSize(1000, 600));
    QVERIFY(screen.contains(fitted));
    QVERIFY(std::abs(fitted.center().x() - screen.center().x()) <= 1);
}

void TestWindowGeometry::everyCaseEndsInside()
{
    const QList<QRect> screens{QRect(0, 0, 1280, 720), QRect(0, 32, 1366, 736), QRect(1920, 0, 1600, 900)};
    const QMargins frame(4, 30, 4, 4);
    for (const QRect &screen : screens)
        for (int x = -2000; x <= 4000; x += 750)
            for (int w : {300, 1200, 2600})
                for (int h : {200, 700, 1600}) {
                    const QRect window(x, x / 3, w, h);
                    const QRect fitted = fitWindowToScreen(window, screen, frame);
                    QVERIFY2(screen.contains(fitted.marginsAdded(frame)),
                             qPrintable(QStringLiteral("%1,%2 %3x%4 on %5,%6 %7x%8")
                                            .arg(window.x()).arg(window.y()).arg(w).arg(h)
                                            .arg(screen.x()).arg(screen.y()).arg(screen.width()).arg(screen.height())));
                    QVERIFY(fitted.width() <= w && fitted.height() <= h);
                }
}

TY_TEST_CLASS(TestWindowGeometry)

#include "test_window_geometry.moc"
