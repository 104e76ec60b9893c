#pragma once
// The test classes of the widgets suite, run one after another by widget_tests_main.cpp.

namespace tytest {
int runDocumentCommandTests(int argc, char **argv);
int runFilesAndFragmentsTests(int argc, char **argv);
int runSceneTests(int argc, char **argv);
int runInspectorTests(int argc, char **argv);
int runStagesEditorTests(int argc, char **argv);
int runBundledPresetTests(int argc, char **argv);
int runMainWindowTests(int argc, char **argv);
} // namespace tytest
