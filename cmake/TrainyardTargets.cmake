# Helpers shared by every target of the project.

# ty_add_library(NAME SOURCES...): a static library whose public headers are the files of its folder.
function(ty_add_library name)
  add_library(${name} STATIC ${ARGN})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(${name} PUBLIC QT_NO_KEYWORDS)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# Compiling against LibTorch is what the build spends its time on (docs/development.md, "Build times"): every
# translation unit that includes <torch/torch.h> loads a precompiled header of several hundred MB and writes
# debug information for what it uses of it. So:
# - one precompiled header for the whole project (ty_torch_pch), which every torch-including target reuses
#   (gcc accepts it only when the flags that shape it agree: the same position-independent code and debug
#   level, every macro it was built with defined alike, so it is built with LibTorch's alone; -Winvalid-pch,
#   which CMake adds, makes a mismatch a warning, an error under TRAINYARD_WERROR);
# - line tables only (-g1) in RelWithDebInfo builds of those targets: stacks and profiles keep their function
#   names and lines, the objects lose the type information of LibTorch's headers (a third of each compile).
set(TY_TORCH_DEBUG_LEVEL "$<$<CONFIG:RelWithDebInfo>:-g1>")
set(ty_torch_pch_source ${CMAKE_BINARY_DIR}/ty_torch_pch.cpp)
if(NOT EXISTS ${ty_torch_pch_source})
  file(WRITE ${ty_torch_pch_source} "// The translation unit that builds the shared precompiled <torch/torch.h>.\n")
endif()
add_library(ty_torch_pch OBJECT ${ty_torch_pch_source})
target_link_libraries(ty_torch_pch PRIVATE ${TORCH_LIBRARIES})
target_compile_options(ty_torch_pch PRIVATE ${TY_TORCH_DEBUG_LEVEL})
target_precompile_headers(ty_torch_pch PRIVATE <torch/torch.h>)
set_target_properties(ty_torch_pch PROPERTIES POSITION_INDEPENDENT_CODE ON)

# - unity batches of six sources in those targets (TRAINYARD_UNITY_TORCH, on by default): each batch pays the
#   header's load once, so the engine's 40-odd files compile in a quarter of the time. A file with flags of its
#   own is left out of the batches (SKIP_UNITY_BUILD_INCLUSION); two files of one target must not define the same
#   name in an anonymous namespace.
option(TRAINYARD_UNITY_TORCH "Compile the targets that include LibTorch in unity batches" ON)

# The widget folders and the test suites spend most of each file's compile in Qt's headers (<QtWidgets> alone
# takes 5 s); unity batches of six share that too (TRAINYARD_UNITY_QT, on by default), with the same rule for
# names in anonymous namespaces. A precompiled Qt header cannot be shared: gcc refuses it in a target whose Qt
# modules (QT_*_LIB) differ from the one it was built in.
option(TRAINYARD_UNITY_QT "Compile the widget folders and the test suites in unity batches" ON)
# ty_unity_batches(TARGET [ENABLED]): batches of six for TARGET when ENABLED (default TRAINYARD_UNITY_QT) is on.
function(ty_unity_batches name)
  set(enabled ${TRAINYARD_UNITY_QT})
  if(ARGC GREATER 1)
    set(enabled ${ARGV1})
  endif()
  if(enabled)
    set_target_properties(${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 6)
  endif()
endfunction()

# ty_link_torch_privately(TARGET): LibTorch for a target that may use it (core/engine, tests, benchmarks), with
# the shared precompiled header. Executables compile as position-independent code (-fPIC, as the header was
# built) and still link as PIE, the compiler's default.
function(ty_link_torch_privately name)
  target_link_libraries(${name} PRIVATE ${TORCH_LIBRARIES})
  target_precompile_headers(${name} REUSE_FROM ty_torch_pch)
  target_compile_options(${name} PRIVATE ${TY_TORCH_DEBUG_LEVEL})
  ty_unity_batches(${name} ${TRAINYARD_UNITY_TORCH})
  get_target_property(type ${name} TYPE)
  if(type STREQUAL "EXECUTABLE")
    target_compile_options(${name} PRIVATE -fPIC)
  else()
    set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  endif()
endfunction()
