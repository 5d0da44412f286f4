/* Forced into every C file of the Windows CLI built by mingw-w64 (cmake/windows-seat.cmake):
 * jansson's Windows config prints json_int_t with MSVC's "I64d", and mingw-w64's C99 printf
 * (__USE_MINGW_ANSI_STDIO, which the code's %zu needs) takes "lld". */
#include <jansson.h>
#undef JSON_INTEGER_FORMAT
#define JSON_INTEGER_FORMAT "lld"
