/* Reads standard input and prints, for every N lines (default 1,000,000), the chunk's first line
 * number and a 64-bit FNV-1a hash of its bytes, then a last line with the total line count. Two runs
 * whose outputs are the same bytes print the same lines; where they differ, the first differing
 * chunk says where to look. Used by same-bytes.sh to compare outputs too large to keep on disk. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    static unsigned char buffer[1 << 20];
    uint64_t h = 1469598103934665603ULL;
    long line = 1, first = 1;
    size_t count;
    while ((count = fread(buffer, 1, sizeof buffer, stdin)) > 0) {
        for (size_t i = 0; i < count; i++) {
            h = (h ^ buffer[i]) * 1099511628211ULL;
            if (buffer[i] == '\n') {
                if (line - first + 1 == n) {
                    printf("%ld %016llx\n", first, (unsigned long long)h);
                    h = 1469598103934665603ULL;
                    first = line + 1;
                }
                line++;
            }
        }
    }
    printf("%ld %016llx end %ld\n", first, (unsigned long long)h, line - 1);
    return 0;
}
