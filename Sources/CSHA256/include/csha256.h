#ifndef CSHA256_H
#define CSHA256_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has SHA-256 instructions this library uses (the SHA
/// extensions on x86-64, with SSSE3 and SSE 4.1; the SHA2 extension on
/// AArch64 where the compiler targets it). Checked at run time.
int csha256_hardware_available(void);

/// Compresses `blocks` 64-byte blocks at `data` into `state` (the eight
/// SHA-256 words a, b, …, h) with the CPU's instructions: exactly what the
/// portable compression function does, block by block. Call only when
/// `csha256_hardware_available()` is non-zero.
void csha256_hardware_compress(uint32_t state[8], const void *data, size_t blocks);

/// Compresses two independent messages of `blocks` 64-byte blocks each,
/// `dataA` into `stateA` and `dataB` into `stateB`, their rounds interleaved
/// (exactly two calls of `csha256_hardware_compress`, faster). Call only when
/// `csha256_hardware_available()` is non-zero.
void csha256_hardware_compress2(uint32_t stateA[8], const void *dataA, uint32_t stateB[8], const void *dataB, size_t blocks);

/// Compresses `count` independent messages of `blocks` 64-byte blocks each:
/// `data[i]` into the state `states[8 * i ..< 8 * i + 8]`, three at a time
/// with their rounds interleaved (exactly `count` calls of
/// `csha256_hardware_compress`, faster). Call only when
/// `csha256_hardware_available()` is non-zero.
void csha256_hardware_compress_many(uint32_t *states, const void *const *data, size_t count, size_t blocks);

#endif
