# Wires kvplan_kernels_cuda into kvplan_kernels from outside kernels/CMakeLists.txt, for trees
# where that file does not add_subdirectory(cuda) yet:
#   cmake --preset cuda -DCMAKE_PROJECT_INCLUDE=$PWD/kernels/cuda/wire.cmake
# (scripts/gpu-check.sh does this). A no-op once kernels/CMakeLists.txt adds the subdirectory.
function(kvplan_wire_cuda)
  if(KVPLAN_HAVE_CUDA AND TARGET kvplan_kernels AND NOT TARGET kvplan_kernels_cuda)
    include(${CMAKE_SOURCE_DIR}/kernels/cuda/CMakeLists.txt)  # add_subdirectory is not allowed here
    target_link_libraries(kvplan_kernels PUBLIC kvplan_kernels_cuda)
    target_compile_definitions(kvplan_kernels PUBLIC KVPLAN_HAVE_CUDA=1)
    # Read at generate time in this (top-level) directory.
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "${CMAKE_CUDA20_STANDARD_COMPILE_OPTION}" PARENT_SCOPE)
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "${CMAKE_CUDA20_EXTENSION_COMPILE_OPTION}" PARENT_SCOPE)
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL kvplan_wire_cuda)
