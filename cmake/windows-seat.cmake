# The Windows build: the seat alone, shardcc-wrap.exe, libc only (no CLI: its libraries
# have no Windows packages here; docs/windows.md). Included by CMakeLists.txt when
# CMAKE_SYSTEM_NAME is Windows (mingw-w64 here, MSVC or clang-cl on a Windows runner).
find_path(XXHASH_INCLUDE_DIR xxhash.h)
if(NOT XXHASH_INCLUDE_DIR)
  # header-only and standard C: the build machine's copy serves (Debian: libxxhash-dev),
  # copied alone into a directory of its own (not the build machine's /usr/include)
  find_file(XXHASH_HOST_HEADER xxhash.h PATHS /usr/include NO_CMAKE_FIND_ROOT_PATH REQUIRED)
  configure_file(${XXHASH_HOST_HEADER} ${PROJECT_BINARY_DIR}/seat-include/xxhash.h COPYONLY)
  set(XXHASH_INCLUDE_DIR ${PROJECT_BINARY_DIR}/seat-include CACHE PATH "xxhash.h" FORCE)
endif()
if(MSVC)
  # warnings shown, not errors: no MSVC compiled this before the Windows CI job (docs/windows.md)
  add_compile_options(/W3 /utf-8 -D_CRT_SECURE_NO_WARNINGS -D_CRT_NONSTDC_NO_WARNINGS)
else()
  add_compile_options(${SHARDCC_C_OPTIONS} -D__USE_MINGW_ANSI_STDIO=1)
endif()
add_compile_definitions(_WIN32_WINNT=0x0A00 SHARDCC_SEAT_LIBC="msvcrt")
add_executable(shardcc-wrap
  src/wrap/main.c
  src/common/strbuf.c src/common/strvec.c src/common/path.c src/common/platform_win32.c
  src/common/args.c src/common/sha256.c
  src/wrap/seat.c src/wrap/options.c src/wrap/nvcc_options.c src/wrap/gcc_options.c
  src/wrap/cl_options.c
  src/wrap/rsp.c src/wrap/argv.c src/wrap/classify.c src/wrap/partition.c
  src/wrap/stub_coff.c src/wrap/stub.c src/wrap/journal.c src/wrap/ccache_log.c
  src/wrap/ldseat.c src/wrap/devcode.c src/wrap/dryrun.c src/wrap/pipeline.c src/wrap/split.c)
target_include_directories(shardcc-wrap PRIVATE src/common src/wrap ${XXHASH_INCLUDE_DIR})
target_link_libraries(shardcc-wrap PRIVATE shell32) # CommandLineToArgvW
if(NOT MSVC)
  target_link_options(shardcc-wrap PRIVATE -static)
endif()
# The seat names are copies on Windows (a symbolic link needs a privilege there).
set(SHARDCC_SEATS shardcc-nvcc shardcc-nvcc-torch shardcc-c++ shardcc-cc)
foreach(seat IN LISTS SHARDCC_SEATS)
  add_custom_command(TARGET shardcc-wrap POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E copy_if_different shardcc-wrap.exe ${seat}.exe
    WORKING_DIRECTORY ${PROJECT_BINARY_DIR} VERBATIM)
endforeach()
install(TARGETS shardcc-wrap RUNTIME DESTINATION bin)
foreach(seat IN LISTS SHARDCC_SEATS)
  install(PROGRAMS ${PROJECT_BINARY_DIR}/${seat}.exe DESTINATION bin)
endforeach()
