#ifndef PERIMETER_CGEOS_SHIM_H
#define PERIMETER_CGEOS_SHIM_H
// Only the reentrant (_r) API: each GEOS call takes an explicit context handle, so the engine
// never touches GEOS's global state.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
#endif
