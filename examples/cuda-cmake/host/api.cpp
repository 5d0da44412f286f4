// Host TU: the library's version API, from the header generated at configure time.
#include "kern/config.h"

extern "C" const char *kern_version(void) { return KERN_VERSION; }
extern "C" int kern_default_block(void) { return KERN_BLOCK; }
