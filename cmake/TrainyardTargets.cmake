# Helpers shared by every target of the project.

# ty_add_library(NAME SOURCES...): a static library whose public headers are the files of its folder.
function(ty_add_library name)
  add_library(${name} STATIC ${ARGN})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(${name} PUBLIC QT_NO_KEYWORDS)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# ty_link_torch_privately(TARGET): LibTorch for a target that may use it (core/engine, tests), with one
# precompiled header shared by every torch-including file of that target.
function(ty_link_torch_privately name)
  target_link_libraries(${name} PRIVATE ${TORCH_LIBRARIES})
  target_precompile_headers(${name} PRIVATE <torch/torch.h>)
endfunction()
