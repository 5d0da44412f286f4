// Host TU: the table of kernel entry points the library exports.
#include <cstring>
#include <string>
#include <vector>

#include "kern/config.h"

namespace {
const std::vector<std::string> &names()
{
    static const std::vector<std::string> n = {"reduce", "stencil", "transpose"};
    return n;
}
} // namespace

extern "C" int kern_registry_size(void) { return static_cast<int>(names().size()); }
extern "C" const char *kern_registry_name(int i)
{
    return i >= 0 && i < kern_registry_size() ? names()[i].c_str() : nullptr;
}
