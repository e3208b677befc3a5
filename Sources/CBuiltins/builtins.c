/* Header-only: the target needs one source file to build. */
#include "builtins.h"
