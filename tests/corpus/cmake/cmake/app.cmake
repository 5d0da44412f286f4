# corpus_app(NAME SOURCES...): an executable linking the library, and its CTest test: on
# the CPU reference path unless CORPUS_GPU_TESTS is on.
option(CORPUS_GPU_TESTS "Run the tests on the GPU" OFF)
function(corpus_app name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE corpus_core)
  if(CORPUS_GPU_TESTS)
    add_test(NAME ${name} COMMAND ${name})
  else()
    add_test(NAME ${name} COMMAND ${name} --cpu)
  endif()
endfunction()
