# The Windows build: the seat, shardcc-wrap.exe (libc only), and, given the CLI's libraries,
# the CLI, shardcc.exe (docs/windows.md). Included by CMakeLists.txt when CMAKE_SYSTEM_NAME
# is Windows (mingw-w64 here, MSVC on a Windows runner).
#   -DSHARDCC_WINDOWS_DEPS=PREFIX   a prefix with include/ and lib/ holding jansson, libyaml,
#                                   libarchive (with zstd and zlib), static: built here by
#                                   scripts/windows-deps.sh from Debian's source packages, on a
#                                   runner vcpkg's installed/x64-windows-static
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
# UTF-8 as the process code page (Windows 10 1903 and later, Wine 8): the C runtime's file
# calls and getenv then take the same UTF-8 the code passes everywhere else. MSVC merges a
# .manifest source into the one it embeds; mingw-w64 takes it as a resource.
if(MSVC)
  set(SHARDCC_WIN_MANIFEST ${PROJECT_SOURCE_DIR}/cmake/windows-utf8.manifest)
else()
  enable_language(RC)
  file(WRITE ${PROJECT_BINARY_DIR}/windows-utf8.rc
    "1 24 \"${PROJECT_SOURCE_DIR}/cmake/windows-utf8.manifest\"\n")
  set(SHARDCC_WIN_MANIFEST ${PROJECT_BINARY_DIR}/windows-utf8.rc)
endif()
add_executable(shardcc-wrap src/wrap/main.c ${SHARDCC_COMMON_SRC} src/common/platform_win32.c
  ${SHARDCC_WRAPCORE_SRC} ${SHARDCC_WIN_MANIFEST})
target_include_directories(shardcc-wrap PRIVATE src/common src/wrap ${XXHASH_INCLUDE_DIR})
target_link_libraries(shardcc-wrap PRIVATE shell32) # CommandLineToArgvW
if(NOT MSVC)
  # no link time in the PE header: the same sources give the same bytes
  target_link_options(shardcc-wrap PRIVATE -static -Wl,--no-insert-timestamp)
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

# The CLI, where its libraries are given.
set(SHARDCC_WINDOWS_DEPS "" CACHE PATH "prefix of the Windows CLI's static libraries (scripts/windows-deps.sh or vcpkg)")
if(SHARDCC_WINDOWS_DEPS)
  set(cli_libs)
  # the names of Debian's sources built by mingw-w64, then vcpkg's
  foreach(spec "archive_static;archive" "zstd_static;zstd" "libz.a;zlib;z" "jansson" "yaml")
    list(GET spec 0 first)
    find_library(SHARDCC_WIN_LIB_${first} NAMES ${spec} PATHS ${SHARDCC_WINDOWS_DEPS}/lib
      NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
    if(NOT SHARDCC_WIN_LIB_${first})
      # mingw-w64's own zlib (Debian: libz-mingw-w64-dev)
      find_library(SHARDCC_WIN_LIB_${first} NAMES ${spec})
    endif()
    if(NOT SHARDCC_WIN_LIB_${first})
      message(FATAL_ERROR "SHARDCC_WINDOWS_DEPS=${SHARDCC_WINDOWS_DEPS}: no library named ${spec} in its lib/ "
        "(scripts/windows-deps.sh PREFIX builds them)")
    endif()
    list(APPEND cli_libs ${SHARDCC_WIN_LIB_${first}})
  endforeach()
  add_executable(shardcc ${SHARDCC_CLI_SRC} src/cli/static_noxar.c
    ${SHARDCC_CORE_SRC} src/core/net_win32.c
    ${SHARDCC_COMMON_SRC} src/common/platform_win32.c
    ${SHARDCC_WRAPCORE_SRC} ${SHARDCC_WIN_MANIFEST})
  target_include_directories(shardcc PRIVATE src/cli src/core src/common src/wrap
    ${XXHASH_INCLUDE_DIR} ${SHARDCC_WINDOWS_DEPS}/include)
  # static libraries: no __declspec(dllimport) in their headers
  target_compile_definitions(shardcc PRIVATE LIBARCHIVE_STATIC YAML_DECLARE_STATIC)
  target_link_libraries(shardcc PRIVATE ${cli_libs} ws2_32 shell32 bcrypt)
  if(NOT MSVC)
    target_compile_options(shardcc PRIVATE -include ${PROJECT_SOURCE_DIR}/cmake/mingw-jansson-format.h)
    target_link_options(shardcc PRIVATE -static -Wl,--no-insert-timestamp)
  endif()
  install(TARGETS shardcc RUNTIME DESTINATION bin)
endif()
