#ifndef MODELGEN_CSHA256_H
#define MODELGEN_CSHA256_H

#include <stddef.h>
#include <stdint.h>

/// SHA-256's 64 round constants (FIPS 180-4 §4.2.2), for the portable compression too.
const uint32_t *modelgen_sha256_round_constants(void);

/// Whether this processor has the SHA extensions (and SSSE3 / SSE4.1) that
/// `modelgen_sha256_blocks` needs. Always 0 where they do not exist.
int modelgen_sha256_accelerated(void);

/// Runs SHA-256's compression function over `blocks` 64-byte blocks at `data`,
/// updating `state` (the eight working words, H0 first). Only call it when
/// `modelgen_sha256_accelerated()` returned 1.
void modelgen_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
