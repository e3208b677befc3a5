// (A C target needs a source file; the header is the point.)
#include "CLibFuzzer.h"
