#pragma once
// One Qt Test executable per suite, holding several test classes: every class registers itself with
// TY_TEST_CLASS(Class) in its .cpp, and the suite's main() calls runRegisteredTests(). Test functions can be
// run by name as with a single-class Qt Test program:
//   test_engine warmStartCopiesExactlyTheRequestedTensors        (in whichever class has it)
//   test_engine TestStages::keptAndBestCheckpoints                (one class's)
//   test_engine resumeInsideALaterStageEqualsUninterrupted:"at the stage boundary"   (one data row)
//   test_engine TestStages                                        (every function of one class)
// A class with none of the named functions is skipped; a name that no class is or has is an error. Options
// (-o, -v2, -maxwarnings N, ...) go to every class run. CTest runs each class as its own test (SUITE.Class,
// labelled SUITE), so `ctest -j` spreads a suite's classes over the cores; `--check-classes A,B` checks that
// those entries cover every class registered.

#include <QObject>

#include <memory>

namespace tytest {

using TestClassFactory = std::unique_ptr<QObject> (*)();

// Adds a test class to this executable's suite; returns true (for a static initialiser).
bool registerTestClass(const char *name, TestClassFactory factory);

// Runs the registered classes, in name order, with the arguments as above. Returns 0 when every class run
// passed, 1 otherwise (and when a named function exists in no class). Prints a one-line summary naming the
// classes that failed, labelled `suite`.
int runRegisteredTests(int argc, char **argv, const char *suite);

} // namespace tytest

#define TY_TEST_CLASS(Class)                                                                                     \
    namespace {                                                                                                  \
    const bool registered##Class = tytest::registerTestClass(                                                    \
        #Class, []() -> std::unique_ptr<QObject> { return std::make_unique<Class>(); });                         \
    }
