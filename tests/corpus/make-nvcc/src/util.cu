#include "common.h"
#include <cmath>
int report(const char *name, float got, float want)
{
    int ok = std::fabs(got - want) < 1e-3f * (1 + std::fabs(want));
    std::printf("%s: %s (%g, expected %g)\n", name, ok ? "ok" : "FAILED", got, want);
    return ok ? 0 : 1;
}
