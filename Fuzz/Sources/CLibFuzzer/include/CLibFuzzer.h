#ifndef PERIMETER_CLIBFUZZER_H
#define PERIMETER_CLIBFUZZER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, run from the target's own `main` (SwiftPM gives every executable one, which
/// keeps libFuzzer's `main` out of the link).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));

#endif
