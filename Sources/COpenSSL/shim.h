#ifndef PERIMETER_COPENSSL_SHIM_H
#define PERIMETER_COPENSSL_SHIM_H
// Only the message digests (SHA-256 through EVP), for the index cache's checks.
#include <openssl/evp.h>
#endif
