// Hardware CRC-32C for the event log's checksums. The portable Swift
// implementation (CRC32C.swift) gives identical results; tests compare them.
#include "ccrc32c.h"
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define CCRC32C_TARGET __attribute__((target("sse4.2")))

int ccrc32c_hardware_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_SSE4_2) != 0;
}

__attribute__((target("sse4.2")))
uint32_t ccrc32c_hardware_update(uint32_t crc, const void *bytes, size_t length) {
    const unsigned char *p = (const unsigned char *)bytes;
    uint64_t c = crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = __builtin_ia32_crc32di(c, word);
        p += 8;
        length -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    if (length & 4) {
        uint32_t word;
        memcpy(&word, p, 4);
        c32 = __builtin_ia32_crc32si(c32, word);
        p += 4;
    }
    if (length & 2) {
        uint16_t half;
        memcpy(&half, p, 2);
        c32 = __builtin_ia32_crc32hi(c32, half);
        p += 2;
    }
    if (length & 1) c32 = __builtin_ia32_crc32qi(c32, *p);
    return c32;
}

#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__)) && (!defined(__BYTE_ORDER__) || __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define CCRC32C_TARGET __attribute__((target("crc")))

#if defined(__APPLE__)
int ccrc32c_hardware_available(void) { return 1; }  // every Apple AArch64 CPU has the CRC extension
#elif defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
int ccrc32c_hardware_available(void) { return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0; }
#else
int ccrc32c_hardware_available(void) { return 0; }
#endif

__attribute__((target("crc")))
uint32_t ccrc32c_hardware_update(uint32_t crc, const void *bytes, size_t length) {
    const unsigned char *p = (const unsigned char *)bytes;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        crc = __builtin_arm_crc32cd(crc, word);
        p += 8;
        length -= 8;
    }
    if (length & 4) {
        uint32_t word;
        memcpy(&word, p, 4);
        crc = __builtin_arm_crc32cw(crc, word);
        p += 4;
    }
    if (length & 2) {
        uint16_t half;
        memcpy(&half, p, 2);
        crc = __builtin_arm_crc32ch(crc, half);
        p += 2;
    }
    if (length & 1) crc = __builtin_arm_crc32cb(crc, *p);
    return crc;
}

#else
#define CCRC32C_TARGET

int ccrc32c_hardware_available(void) { return 0; }
uint32_t ccrc32c_hardware_update(uint32_t crc, const void *bytes, size_t length) {
    (void)bytes; (void)length;
    return crc;
}

#endif

CCRC32C_TARGET
uint32_t ccrc32c_hardware_update2(uint32_t crc, const void *first, size_t first_length,
                                  const void *second, size_t second_length) {
    return ccrc32c_hardware_update(ccrc32c_hardware_update(crc, first, first_length), second, second_length);
}
