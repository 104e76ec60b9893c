// core/blocks/param_values: type and range checks of parameter values, parsing of typed text (--set, the
// inspector), and the text a person types for a value. The messages are what users read.

#include "test_suite.h"
#include "core_test_support.h"

#include "block_registry.h"
#include "param_values.h"
#include "training_settings.h"

#include <QJsonArray>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace ty;

Q_DECLARE_METATYPE(ty::ParamSpec)

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

ParamSpec kernelSpec() { return spec::intParam(QStringLiteral("kernel_size"), 3, 1, 1024, QStringLiteral("k")); }
ParamSpec unboundedInt() { return spec::intParam(QStringLiteral("n"), 0, -kInf, kInf, QStringLiteral("n")); }
ParamSpec probability() { return spec::floatParam(QStringLiteral("p"), 0.5, 0.0, 1.0, QStringLiteral("p")); }
ParamSpec dropoutP() { return spec::floatParam(QStringLiteral("p"), 0.5, 0.0, 0.999, QStringLiteral("p")); }
ParamSpec flag() { return spec::boolParam(QStringLiteral("bias"), true, QStringLiteral("b")); }
ParamSpec device()
{
    return spec::choiceParam(QStringLiteral("device"), QStringLiteral("auto"),
                             {QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")}, QStringLiteral("d"));
}
ParamSpec text() { return spec::stringParam(QStringLiteral("target"), QString(), QStringLiteral("t")); }
ParamSpec path() { return spec::pathParam(QStringLiteral("dir"), QStringLiteral("/data"), QStringLiteral("d")); }
ParamSpec floats() { return spec::floatListParam(QStringLiteral("mean"), {0.0}, QStringLiteral("m")); }
ParamSpec positiveFloats()
{
    ParamSpec p = spec::floatListParam(QStringLiteral("std"), {1.0}, QStringLiteral("s"));
    p.minimum = 0.0;
    return p;
}

QJsonValue list(std::initializer_list<double> values)
{
    QJsonArray array;
    for (double v : values)
        array.append(v);
    return array;
}

const QJsonValue kUndefined(QJsonValue::Undefined);

class TestParamValues : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void specHelpers();
    void checkParamValue_data();
    void checkParamValue();
    void checkNamesOddValuesOnce();
    void parseParamText_data();
    void parseParamText();
    void parseParamTextWithoutErrorPointer();
    void parseChoiceIgnoresSurroundingSpaces();
    void rangeMessagesShowTheNumbers_data();
    void rangeMessagesShowTheNumbers();
    void paramValueText_data();
    void paramValueText();
    void everyDefaultTypesBackToItself_data();
    void everyDefaultTypesBackToItself();
};

void TestParamValues::specHelpers()
{
    const ParamSpec k = kernelSpec();
    QCOMPARE(k.name, QStringLiteral("kernel_size"));
    QCOMPARE(k.type, ParamType::Int);
    QCOMPARE(k.defaultValue, QJsonValue(3));
    QCOMPARE(k.minimum, 1.0);
    QCOMPARE(k.maximum, 1024.0);
    QCOMPARE(k.doc, QStringLiteral("k"));
    QCOMPARE(flag().type, ParamType::Bool);
    QCOMPARE(flag().defaultValue, QJsonValue(true));
    QCOMPARE(device().type, ParamType::Choice);
    QCOMPARE(device().choices, (QStringList{QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")}));
    QCOMPARE(path().type, ParamType::Path);
    QCOMPARE(text().type, ParamType::String);
    QCOMPARE(floats().type, ParamType::FloatList);
    QCOMPARE(floats().defaultValue, list({0.0}));
    QVERIFY(std::isinf(flag().minimum) && flag().minimum < 0);
    QVERIFY(std::isinf(flag().maximum) && flag().maximum > 0);
    const PortSpec optional = spec::port(QStringLiteral("schedule"), PortKind::Schedule, QStringLiteral("s"), false);
    QCOMPARE(optional.name, QStringLiteral("schedule"));
    QCOMPARE(optional.kind, PortKind::Schedule);
    QCOMPARE(optional.required, false);
    QCOMPARE(spec::port(QStringLiteral("in"), PortKind::Tensor, QStringLiteral("x")).required, true);
}

void TestParamValues::checkParamValue_data()
{
    QTest::addColumn<ParamSpec>("spec");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("expected");  // empty: the value fits

    QTest::newRow("int ok") << kernelSpec() << QJsonValue(5) << "";
    QTest::newRow("int at minimum") << kernelSpec() << QJsonValue(1) << "";
    QTest::newRow("int at maximum") << kernelSpec() << QJsonValue(1024) << "";
    QTest::newRow("int written as 3.0") << kernelSpec() << QJsonValue(3.0) << "";
    QTest::newRow("int below minimum") << kernelSpec() << QJsonValue(0) << "must be at least 1 (got 0)";
    QTest::newRow("int negative") << kernelSpec() << QJsonValue(-3) << "must be at least 1 (got -3)";
    QTest::newRow("int above maximum") << kernelSpec() << QJsonValue(2000) << "must be at most 1024 (got 2000)";
    QTest::newRow("int given a fraction") << kernelSpec() << QJsonValue(2.5) << "expected an integer, got number 2.5";
    QTest::newRow("int given a string") << kernelSpec() << QJsonValue(QStringLiteral("x"))
                                        << "expected an integer, got string \"x\"";
    QTest::newRow("int given a numeric string") << kernelSpec() << QJsonValue(QStringLiteral("3"))
                                                << "expected an integer, got string \"3\"";
    QTest::newRow("int given a boolean") << kernelSpec() << QJsonValue(true) << "expected an integer, got boolean true";
    QTest::newRow("int given a list") << kernelSpec() << list({3, 3}) << "expected an integer, got array 3,3";
    QTest::newRow("unbounded int") << unboundedInt() << QJsonValue(-1e12) << "";

    QTest::newRow("float ok") << probability() << QJsonValue(0.25) << "";
    QTest::newRow("float given an integer") << probability() << QJsonValue(1) << "";
    QTest::newRow("float at minimum") << probability() << QJsonValue(0.0) << "";
    QTest::newRow("float below minimum") << probability() << QJsonValue(-0.1) << "must be at least 0 (got -0.1)";
    QTest::newRow("float above maximum") << probability() << QJsonValue(1.5) << "must be at most 1 (got 1.5)";
    QTest::newRow("float fractional maximum") << dropoutP() << QJsonValue(1.0) << "must be at most 0.999 (got 1)";
    QTest::newRow("float given a string") << probability() << QJsonValue(QStringLiteral("0.5"))
                                          << "expected a number, got string \"0.5\"";
    QTest::newRow("float given a boolean") << probability() << QJsonValue(false) << "expected a number, got boolean false";
    QTest::newRow("float infinite") << probability() << QJsonValue(kInf) << "must be a finite number";
    QTest::newRow("float NaN") << probability() << QJsonValue(kNaN) << "must be a finite number";

    QTest::newRow("bool true") << flag() << QJsonValue(true) << "";
    QTest::newRow("bool false") << flag() << QJsonValue(false) << "";
    QTest::newRow("bool given 1") << flag() << QJsonValue(1) << "expected true or false, got integer 1";
    QTest::newRow("bool given a string") << flag() << QJsonValue(QStringLiteral("true"))
                                         << "expected true or false, got string \"true\"";

    QTest::newRow("choice ok") << device() << QJsonValue(QStringLiteral("cuda")) << "";
    QTest::newRow("choice unknown") << device() << QJsonValue(QStringLiteral("tpu"))
                                    << "expected one of auto, cpu, cuda, got \"tpu\"";
    QTest::newRow("choice is case sensitive") << device() << QJsonValue(QStringLiteral("CPU"))
                                              << "expected one of auto, cpu, cuda, got \"CPU\"";
    QTest::newRow("choice given a number") << device() << QJsonValue(1) << "expected one of auto, cpu, cuda, got integer 1";

    QTest::newRow("string ok") << text() << QJsonValue(QStringLiteral("label")) << "";
    QTest::newRow("string empty") << text() << QJsonValue(QString()) << "";
    QTest::newRow("string given a number") << text() << QJsonValue(5) << "expected a string, got integer 5";
    QTest::newRow("path ok") << path() << QJsonValue(QStringLiteral("/tmp/x y")) << "";
    QTest::newRow("path given a boolean") << path() << QJsonValue(true) << "expected a string, got boolean true";

    QTest::newRow("float list ok") << floats() << list({0.5, -0.25, 3}) << "";
    QTest::newRow("float list of one") << floats() << list({0.286}) << "";
    QTest::newRow("float list given a number") << floats() << QJsonValue(0.5)
                                               << "expected a non-empty list of numbers, got number 0.5";
    QTest::newRow("float list with a string") << floats() << QJsonValue(QJsonArray{0.5, QStringLiteral("x")})
                                              << "expected a list of numbers, found string \"x\"";
    QTest::newRow("float list item below minimum") << positiveFloats() << list({0.3, -1}) << "must be at least 0 (got -1)";
    QTest::newRow("float list item NaN") << floats() << list({kNaN}) << "must be a finite number";
}

void TestParamValues::checkParamValue()
{
    QFETCH(ParamSpec, spec);
    QFETCH(QJsonValue, value);
    QFETCH(QString, expected);
    QCOMPARE(ty::checkParamValue(spec, value), expected);
}

void TestParamValues::checkNamesOddValuesOnce()
{
    // A value is described as "<type> <text>": for values without a text of their own (null, an object, an
    // empty list) the type alone must be named, not "null null" or "array " with a dangling space.
    const QString null = ty::checkParamValue(kernelSpec(), QJsonValue(QJsonValue::Null));
    QVERIFY2(null.startsWith(QStringLiteral("expected an integer, got null")), qPrintable(null));
    QVERIFY2(!null.contains(QStringLiteral("null null")), qPrintable(QStringLiteral("message: \"%1\"").arg(null)));
    const QString object = ty::checkParamValue(probability(), QJsonObject{{QStringLiteral("a"), 1}});
    QVERIFY2(object.startsWith(QStringLiteral("expected a number, got object")), qPrintable(object));
    QVERIFY2(!object.contains(QStringLiteral("object object")), qPrintable(QStringLiteral("message: \"%1\"").arg(object)));
    const QString empty = ty::checkParamValue(floats(), QJsonArray{});
    QVERIFY2(empty.startsWith(QStringLiteral("expected a non-empty list of numbers, got")), qPrintable(empty));
    QVERIFY2(!empty.endsWith(QLatin1Char(' ')), qPrintable(QStringLiteral("message: \"%1\"").arg(empty)));
}

void TestParamValues::parseParamText_data()
{
    QTest::addColumn<ParamSpec>("spec");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QJsonValue>("expected");  // undefined: refused
    QTest::addColumn<QString>("error");

    QTest::newRow("int") << kernelSpec() << "64" << QJsonValue(64) << "";
    QTest::newRow("int with spaces") << kernelSpec() << " 64 " << QJsonValue(64) << "";
    QTest::newRow("int negative unbounded") << unboundedInt() << "-12" << QJsonValue(-12) << "";
    QTest::newRow("int word") << kernelSpec() << "abc" << kUndefined << "expected an integer, got \"abc\"";
    QTest::newRow("int fraction") << kernelSpec() << "2.5" << kUndefined << "expected an integer, got \"2.5\"";
    QTest::newRow("int empty") << kernelSpec() << "" << kUndefined << "expected an integer, got \"\"";
    QTest::newRow("int below minimum") << kernelSpec() << "0" << kUndefined << "must be at least 1 (got 0)";
    QTest::newRow("int above maximum") << kernelSpec() << "4096" << kUndefined << "must be at most 1024 (got 4096)";

    QTest::newRow("float") << probability() << "0.25" << QJsonValue(0.25) << "";
    QTest::newRow("float exponent") << probability() << "3e-4" << QJsonValue(3e-4) << "";
    QTest::newRow("float integer text") << probability() << "1" << QJsonValue(1.0) << "";
    QTest::newRow("float word") << probability() << "half" << kUndefined << "expected a number, got \"half\"";
    QTest::newRow("float comma decimal") << probability() << "0,5" << kUndefined << "expected a number, got \"0,5\"";
    QTest::newRow("float above maximum") << probability() << "1.5" << kUndefined << "must be at most 1 (got 1.5)";
    QTest::newRow("float nan") << probability() << "nan" << kUndefined << "must be a finite number";
    QTest::newRow("float inf") << probability() << "inf" << kUndefined << "must be a finite number";

    QTest::newRow("bool true") << flag() << "true" << QJsonValue(true) << "";
    QTest::newRow("bool TRUE") << flag() << "TRUE" << QJsonValue(true) << "";
    QTest::newRow("bool yes") << flag() << "yes" << QJsonValue(true) << "";
    QTest::newRow("bool 1") << flag() << "1" << QJsonValue(true) << "";
    QTest::newRow("bool false") << flag() << "false" << QJsonValue(false) << "";
    QTest::newRow("bool no") << flag() << "no" << QJsonValue(false) << "";
    QTest::newRow("bool 0") << flag() << "0" << QJsonValue(false) << "";
    QTest::newRow("bool maybe") << flag() << "maybe" << kUndefined << "expected true or false, got \"maybe\"";
    QTest::newRow("bool 2") << flag() << "2" << kUndefined << "expected true or false, got \"2\"";

    QTest::newRow("choice") << device() << "cuda" << QJsonValue(QStringLiteral("cuda")) << "";
    QTest::newRow("choice unknown") << device() << "tpu" << kUndefined << "expected one of auto, cpu, cuda, got \"tpu\"";
    QTest::newRow("choice empty") << device() << "" << kUndefined << "expected one of auto, cpu, cuda, got \"\"";

    QTest::newRow("string") << text() << "label" << QJsonValue(QStringLiteral("label")) << "";
    QTest::newRow("string with commas") << text() << "a,b,c" << QJsonValue(QStringLiteral("a,b,c")) << "";
    QTest::newRow("string empty") << text() << "" << QJsonValue(QString()) << "";
    QTest::newRow("path with spaces") << path() << "/data/my set" << QJsonValue(QStringLiteral("/data/my set")) << "";
    QTest::newRow("path with equals") << path() << "/a=b" << QJsonValue(QStringLiteral("/a=b")) << "";

    QTest::newRow("float list") << floats() << "0.5,0.25" << list({0.5, 0.25}) << "";
    QTest::newRow("float list bracketed") << floats() << "[0.1, 0.2, 0.3]" << list({0.1, 0.2, 0.3}) << "";
    QTest::newRow("float list of one") << floats() << "0.286" << list({0.286}) << "";
    QTest::newRow("float list with spaces") << floats() << " 1 , 2 " << list({1, 2}) << "";
    QTest::newRow("float list word") << floats() << "a,b" << kUndefined
                                     << "expected a comma-separated list of numbers, got \"a,b\"";
    QTest::newRow("float list half bad") << floats() << "0.5,x" << kUndefined
                                         << "expected a comma-separated list of numbers, got \"0.5,x\"";
    QTest::newRow("float list negative std") << positiveFloats() << "0.3,-1" << kUndefined << "must be at least 0 (got -1)";
}

void TestParamValues::parseParamText()
{
    QFETCH(ParamSpec, spec);
    QFETCH(QString, text);
    QFETCH(QJsonValue, expected);
    QFETCH(QString, error);
    QString problem;
    const QJsonValue value = ty::parseParamText(spec, text, &problem);
    QCOMPARE(problem, error);
    QCOMPARE(value.isUndefined(), expected.isUndefined());
    if (!expected.isUndefined()) {
        QCOMPARE(value.type(), expected.type());
        QCOMPARE(value, expected);
        QCOMPARE(ty::checkParamValue(spec, value), QString());
    }
}

void TestParamValues::parseParamTextWithoutErrorPointer()
{
    QVERIFY(ty::parseParamText(kernelSpec(), QStringLiteral("abc"), nullptr).isUndefined());
    QVERIFY(ty::parseParamText(kernelSpec(), QStringLiteral("0"), nullptr).isUndefined());
    QVERIFY(ty::parseParamText(floats(), QStringLiteral("a"), nullptr).isUndefined());
    QVERIFY(ty::parseParamText(flag(), QStringLiteral("maybe"), nullptr).isUndefined());
    QCOMPARE(ty::parseParamText(kernelSpec(), QStringLiteral("5"), nullptr), QJsonValue(5));
}

void TestParamValues::parseChoiceIgnoresSurroundingSpaces()
{
    // Numbers, booleans and lists are trimmed before parsing ("--set fc.out_features= 64" works), and so is the
    // key of an override; a choice is not, so `--set "training.device = cpu"` fails while
    // `--set "training.epochs = 5"` works. No choice can start or end with a space.
    QString problem;
    const QJsonValue value = ty::parseParamText(device(), QStringLiteral(" cpu "), &problem);
    QCOMPARE(value, QJsonValue(QStringLiteral("cpu")));
}

void TestParamValues::rangeMessagesShowTheNumbers_data()
{
    QTest::addColumn<ParamSpec>("spec");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("expected");
    const ParamSpec epochs = *trainingSpec(QStringLiteral("epochs"));
    const ParamSpec lr = spec::floatParam(QStringLiteral("lr"), 0.01, 0.0, 10.0, QStringLiteral("Learning rate"));
    QTest::newRow("integer limit of seven digits") << epochs << QJsonValue(2000000)
                                                   << "must be at most 1000000 (got 2000000)";
    QTest::newRow("just above a limit") << lr << QJsonValue(10.0000001) << "must be at most 10 (got 10.0000001)";
}

void TestParamValues::rangeMessagesShowTheNumbers()
{
    // The numbers of a range message are printed with 6 significant digits in %g style: an integer limit of a
    // million reads "1e+06", and a value just past a limit reads as the limit itself ("at most 10 (got 10)").
    QFETCH(ParamSpec, spec);
    QFETCH(QJsonValue, value);
    QFETCH(QString, expected);
    const QString message = ty::checkParamValue(spec, value);
    QVERIFY2(!message.isEmpty(), "the value is out of range");
    QCOMPARE(message, expected);
}

void TestParamValues::paramValueText_data()
{
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("expected");
    QTest::newRow("integer") << QJsonValue(64) << "64";
    QTest::newRow("large integer") << QJsonValue(10000000) << "10000000";
    QTest::newRow("negative") << QJsonValue(-3) << "-3";
    QTest::newRow("learning rate") << QJsonValue(0.001) << "0.001";
    QTest::newRow("tiny") << QJsonValue(1e-8) << "1e-08";
    QTest::newRow("three tenths") << QJsonValue(0.3) << "0.3";
    QTest::newRow("true") << QJsonValue(true) << "true";
    QTest::newRow("false") << QJsonValue(false) << "false";
    QTest::newRow("choice") << QJsonValue(QStringLiteral("relu")) << "relu";
    QTest::newRow("empty string") << QJsonValue(QString()) << "";
    QTest::newRow("list") << list({0.5, 0.5}) << "0.5,0.5";
    QTest::newRow("list of one") << list({0.286}) << "0.286";
}

void TestParamValues::paramValueText()
{
    QFETCH(QJsonValue, value);
    QFETCH(QString, expected);
    QCOMPARE(ty::paramValueText(value), expected);
}

void TestParamValues::everyDefaultTypesBackToItself_data()
{
    QTest::addColumn<ParamSpec>("spec");
    for (const BlockDescriptor &block : BlockRegistry::builtin().all())
        for (const ParamSpec &spec : block.params)
            QTest::newRow(qPrintable(block.typeId + QLatin1Char('.') + spec.name)) << spec;
    for (const ParamSpec &spec : trainingSpecs())
        QTest::newRow(qPrintable(QStringLiteral("training.") + spec.name)) << spec;
}

void TestParamValues::everyDefaultTypesBackToItself()
{
    // What the inspector shows for a value, typed back, is the same value.
    QFETCH(ParamSpec, spec);
    QString problem;
    const QJsonValue typed = ty::parseParamText(spec, ty::paramValueText(spec.defaultValue), &problem);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QCOMPARE(typed, spec.defaultValue);
}

} // namespace

TY_TEST_CLASS(TestParamValues)

#include "test_param_values.moc"
