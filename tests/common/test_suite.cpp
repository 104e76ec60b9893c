#include "test_suite.h"

#include <QByteArray>
#include <QMetaMethod>
#include <QSet>
#include <QStringList>
#include <QTest>
#include <QTextStream>

#include <map>
#include <vector>

namespace tytest {

namespace {

std::map<QByteArray, TestClassFactory> &registry()
{
    static std::map<QByteArray, TestClassFactory> classes;  // by name: the run order
    return classes;
}

// Qt Test options followed by a value.
bool takesValue(const QByteArray &option)
{
    static const QSet<QByteArray> withValue{"-o", "-maxwarnings", "-eventdelay", "-keydelay", "-mousedelay", "-perfcounter",
                                            "-minimumvalue", "-minimumtotal", "-iterations", "-median", "-platform"};
    return withValue.contains(option);
}

QSet<QByteArray> testFunctions(const QObject &object)
{
    QSet<QByteArray> names;
    const QMetaObject *meta = object.metaObject();
    for (int i = meta->methodOffset(); i < meta->methodCount(); ++i)
        names.insert(meta->method(i).name());
    return names;
}

} // namespace

bool registerTestClass(const char *name, TestClassFactory factory)
{
    registry()[QByteArray(name)] = factory;
    return true;
}

namespace {

// `--check-classes A,B,C`: whether the classes registered are exactly those the build made a CTest entry for
// (tests/CMakeLists.txt reads TY_TEST_CLASS lines from the sources); a class written another way would not run.
int checkClasses(const QByteArray &expected, const char *suite)
{
    QSet<QByteArray> listed;
    for (const QByteArray &name : expected.split(','))
        if (!name.isEmpty())
            listed.insert(name);
    QSet<QByteArray> registered;
    for (const auto &entry : registry())
        registered.insert(entry.first);
    if (listed == registered)
        return 0;
    QTextStream err(stderr);
    for (const QByteArray &name : registered - listed)
        err << suite << ": test class " << name << " is registered but has no CTest entry (write TY_TEST_CLASS(" << name
            << ") at the start of a line of a source listed in ty_add_test)\n";
    for (const QByteArray &name : listed - registered)
        err << suite << ": CTest expects test class " << name << ", which is not registered\n";
    return 1;
}

} // namespace

int runRegisteredTests(int argc, char **argv, const char *suite)
{
    if (argc == 3 && QByteArray(argv[1]) == "--check-classes")
        return checkClasses(QByteArray(argv[2]), suite);
    std::vector<QByteArray> options;  // with their values
    std::vector<QByteArray> functions;
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg.startsWith('-')) {
            options.push_back(arg);
            if (takesValue(arg) && i + 1 < argc)
                options.push_back(QByteArray(argv[++i]));
        } else {
            functions.push_back(arg);
        }
    }
    QTextStream err(stderr);
    std::vector<bool> matched(functions.size(), false);
    int failed = 0;
    QStringList failedClasses;
    for (const auto &[className, factory] : registry()) {
        const std::unique_ptr<QObject> test = factory();
        const QSet<QByteArray> own = testFunctions(*test);
        std::vector<QByteArray> mine;
        bool wholeClass = false;  // named by the class's own name
        for (size_t f = 0; f < functions.size(); ++f) {
            QByteArray name = functions[f];
            if (name == className) {
                wholeClass = matched[f] = true;
                continue;
            }
            if (const int scope = name.indexOf("::"); scope >= 0) {
                if (name.left(scope) != className)
                    continue;
                name = name.mid(scope + 2);
            }
            if (own.contains(name.left(name.indexOf(':') < 0 ? name.size() : name.indexOf(':')))) {
                mine.push_back(name);
                matched[f] = true;
            }
        }
        if (!functions.empty() && mine.empty() && !wholeClass)
            continue;
        if (wholeClass)
            mine.clear();
        std::vector<QByteArray> arguments{QByteArray(argv[0])};
        arguments.insert(arguments.end(), options.begin(), options.end());
        arguments.insert(arguments.end(), mine.begin(), mine.end());
        std::vector<char *> pointers;
        for (QByteArray &a : arguments)
            pointers.push_back(a.data());
        const int failures = QTest::qExec(test.get(), int(pointers.size()), pointers.data());
        if (failures != 0) {
            ++failed;
            failedClasses << QStringLiteral("%1 (%2)").arg(QString::fromLatin1(className)).arg(failures);
        }
    }
    for (size_t f = 0; f < functions.size(); ++f)
        if (!matched[f]) {
            err << suite << ": no test class is or has a test function \"" << functions[f] << "\"\n";
            ++failed;
        }
    if (failed == 0)
        err << suite << ": all test classes passed\n";
    else if (!failedClasses.isEmpty())
        err << suite << ": failures in " << failedClasses.join(QStringLiteral(", ")) << "\n";
    return failed == 0 ? 0 : 1;
}

} // namespace tytest
