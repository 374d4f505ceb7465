#ifndef CCRC32C_H
#define CCRC32C_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has CRC-32C instructions (SSE 4.2 on x86-64, the CRC
/// extension on AArch64). Checked once at run time.
int ccrc32c_hardware_available(void);

/// Continues a CRC-32C over `length` bytes with the CPU's instructions.
/// `crc` is the running value *before* the final inversion (pass ~0 to start).
/// Call only when `ccrc32c_hardware_available()` is non-zero.
uint32_t ccrc32c_hardware_update(uint32_t crc, const void *bytes, size_t length);

/// Continues a CRC-32C over `first_length` bytes at `first`, then
/// `second_length` bytes at `second` (a frame's length word and its payload,
/// which are not adjacent): one call instead of two. Same conventions as
/// `ccrc32c_hardware_update`.
uint32_t ccrc32c_hardware_update2(uint32_t crc, const void *first, size_t first_length,
                                  const void *second, size_t second_length);

#endif
