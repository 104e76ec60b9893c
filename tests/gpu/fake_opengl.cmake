# Given to CMake as CMAKE_PROJECT_INCLUDE_BEFORE by tests/gpu/run_on_gpu.sh. Qt 6's Gui package asks for OpenGL,
# which a GPU machine's image without Qt may lack; Trainyard draws nothing with it (core/data only decodes images
# with QImage), so an empty target stands in for it. Not used by ordinary builds.
if(NOT TARGET WrapOpenGL::WrapOpenGL)
  add_library(WrapOpenGL::WrapOpenGL INTERFACE IMPORTED GLOBAL)
endif()
