// Hardware SHA-256 compression for the history tree (EventLog's SHA256.swift
// falls back to portable Swift without it, and the tests compare the two).
// The x86-64 path follows Intel's published use of the SHA extensions; the
// AArch64 path the ARMv8 SHA2 instructions. Each is the FIPS 180-4
// compression, four rounds per instruction pair.
#include "csha256.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CSHA256_X86_64 1
#elif defined(__aarch64__) && defined(__ARM_FEATURE_SHA2) && (!defined(__BYTE_ORDER__) || __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define CSHA256_AARCH64 1
#endif

#if defined(CSHA256_X86_64) || defined(CSHA256_AARCH64)
static const uint32_t csha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
#endif

#if defined(CSHA256_X86_64)
#include <cpuid.h>
#include <immintrin.h>

int csha256_hardware_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    if ((ecx & bit_SSSE3) == 0 || (ecx & bit_SSE4_1) == 0) return 0;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    return (ebx & (1u << 29)) != 0;  // SHA
}

// The state as the instructions keep it (ABEF, CDGH), and back.
__attribute__((target("sha,sse4.1,ssse3")))
static inline void csha256_load(const uint32_t state[8], __m128i *abef, __m128i *cdgh) {
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);
    __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);
    *abef = _mm_alignr_epi8(tmp, efgh, 8);
    *cdgh = _mm_blend_epi16(efgh, tmp, 0xF0);
}

__attribute__((target("sha,sse4.1,ssse3")))
static inline void csha256_store(uint32_t state[8], __m128i abef, __m128i cdgh) {
    __m128i tmp = _mm_shuffle_epi32(abef, 0x1B);
    cdgh = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(tmp, cdgh, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(cdgh, tmp, 8));
}

// Up to three independent messages of `blocks` blocks each, their rounds
// interleaved (`n` is a constant where this is inlined, so the loops over the
// streams unroll): one stream waits on each SHA instruction's latency; on
// this library's x86-64 machines (AMD Zen 4) two streams cut a block from
// about 122 cycles to 77 and three to 60, where the unit's throughput bounds
// it (four spill registers and are slower than three).
__attribute__((target("sha,sse4.1,ssse3"), always_inline))
static inline void csha256_streams(const int n, uint32_t *const states[3], const unsigned char *const data[3], size_t blocks) {
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i s0[3], s1[3];  // ABEF, CDGH of each stream
    const unsigned char *p[3];
    for (int s = 0; s < n; s++) {
        p[s] = data[s];
        csha256_load(states[s], &s0[s], &s1[s]);
    }
    while (blocks-- > 0) {
        __m128i abef[3], cdgh[3], m[3][4];
        for (int s = 0; s < n; s++) {
            abef[s] = s0[s];
            cdgh[s] = s1[s];
            for (int i = 0; i < 4; i++) m[s][i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p[s] + 16 * i)), swap);
        }
        for (int g = 0; g < 16; g++) {
            // Rounds 4g…4g+3 of each stream with its schedule words m[s][g % 4].
            const __m128i k = _mm_loadu_si128((const __m128i *)&csha256_k[4 * g]);
            __m128i w[3], x[3];
            for (int s = 0; s < n; s++) {
                w[s] = m[s][g & 3];
                x[s] = _mm_add_epi32(w[s], k);
                s1[s] = _mm_sha256rnds2_epu32(s1[s], s0[s], x[s]);
            }
            if (g >= 3 && g <= 14) {
                // The words of group g+1: finish what msg1 began three groups ago.
                for (int s = 0; s < n; s++) {
                    __m128i next = _mm_add_epi32(m[s][(g + 1) & 3], _mm_alignr_epi8(w[s], m[s][(g + 3) & 3], 4));
                    m[s][(g + 1) & 3] = _mm_sha256msg2_epu32(next, w[s]);
                }
            }
            for (int s = 0; s < n; s++) s0[s] = _mm_sha256rnds2_epu32(s0[s], s1[s], _mm_shuffle_epi32(x[s], 0x0E));
            if (g >= 1 && g <= 12) {
                for (int s = 0; s < n; s++) m[s][(g + 3) & 3] = _mm_sha256msg1_epu32(m[s][(g + 3) & 3], w[s]);
            }
        }
        for (int s = 0; s < n; s++) {
            s0[s] = _mm_add_epi32(s0[s], abef[s]);
            s1[s] = _mm_add_epi32(s1[s], cdgh[s]);
            p[s] += 64;
        }
    }
    for (int s = 0; s < n; s++) csha256_store(states[s], s0[s], s1[s]);
}

__attribute__((target("sha,sse4.1,ssse3")))
void csha256_hardware_compress(uint32_t state[8], const void *data, size_t blocks) {
    uint32_t *const states[3] = {state, NULL, NULL};
    const unsigned char *const bytes[3] = {(const unsigned char *)data, NULL, NULL};
    csha256_streams(1, states, bytes, blocks);
}

__attribute__((target("sha,sse4.1,ssse3")))
void csha256_hardware_compress2(uint32_t stateA[8], const void *dataA, uint32_t stateB[8], const void *dataB, size_t blocks) {
    uint32_t *const states[3] = {stateA, stateB, NULL};
    const unsigned char *const data[3] = {(const unsigned char *)dataA, (const unsigned char *)dataB, NULL};
    csha256_streams(2, states, data, blocks);
}

__attribute__((target("sha,sse4.1,ssse3")))
void csha256_hardware_compress_many(uint32_t *states, const void *const *data, size_t count, size_t blocks) {
    size_t i = 0;
    for (; i + 3 <= count; i += 3) {
        uint32_t *const group[3] = {states + 8 * i, states + 8 * (i + 1), states + 8 * (i + 2)};
        const unsigned char *const bytes[3] = {data[i], data[i + 1], data[i + 2]};
        csha256_streams(3, group, bytes, blocks);
    }
    if (count - i == 2) {
        uint32_t *const group[3] = {states + 8 * i, states + 8 * (i + 1), NULL};
        const unsigned char *const bytes[3] = {data[i], data[i + 1], NULL};
        csha256_streams(2, group, bytes, blocks);
    } else if (count - i == 1) {
        csha256_hardware_compress(states + 8 * i, data[i], blocks);
    }
}

#elif defined(CSHA256_AARCH64)
#include <arm_neon.h>

int csha256_hardware_available(void) { return 1; }  // the compiler targets the extension

void csha256_hardware_compress(uint32_t state[8], const void *data, size_t blocks) {
    const uint8_t *p = (const uint8_t *)data;
    uint32x4_t abcd = vld1q_u32(&state[0]);
    uint32x4_t efgh = vld1q_u32(&state[4]);
    while (blocks-- > 0) {
        const uint32x4_t abcd0 = abcd, efgh0 = efgh;
        uint32x4_t m[4];
        for (int i = 0; i < 4; i++) m[i] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p + 16 * i)));
        for (int g = 0; g < 16; g++) {
            const uint32x4_t w = vaddq_u32(m[g & 3], vld1q_u32(&csha256_k[4 * g]));
            if (g < 12) m[g & 3] = vsha256su1q_u32(vsha256su0q_u32(m[g & 3], m[(g + 1) & 3]), m[(g + 2) & 3], m[(g + 3) & 3]);
            const uint32x4_t before = abcd;
            abcd = vsha256hq_u32(abcd, efgh, w);
            efgh = vsha256h2q_u32(efgh, before, w);
        }
        abcd = vaddq_u32(abcd, abcd0);
        efgh = vaddq_u32(efgh, efgh0);
        p += 64;
    }
    vst1q_u32(&state[0], abcd);
    vst1q_u32(&state[4], efgh);
}

// Two streams one after the other (the ARMv8 instructions' latency is lower; interleaving is left to the core).
void csha256_hardware_compress2(uint32_t stateA[8], const void *dataA, uint32_t stateB[8], const void *dataB, size_t blocks) {
    csha256_hardware_compress(stateA, dataA, blocks);
    csha256_hardware_compress(stateB, dataB, blocks);
}

void csha256_hardware_compress_many(uint32_t *states, const void *const *data, size_t count, size_t blocks) {
    for (size_t i = 0; i < count; i++) csha256_hardware_compress(states + 8 * i, data[i], blocks);
}

#else
int csha256_hardware_available(void) { return 0; }
void csha256_hardware_compress(uint32_t state[8], const void *data, size_t blocks) {
    (void)state;
    (void)data;
    (void)blocks;
}
void csha256_hardware_compress2(uint32_t stateA[8], const void *dataA, uint32_t stateB[8], const void *dataB, size_t blocks) {
    (void)stateA;
    (void)dataA;
    (void)stateB;
    (void)dataB;
    (void)blocks;
}
void csha256_hardware_compress_many(uint32_t *states, const void *const *data, size_t count, size_t blocks) {
    (void)states;
    (void)data;
    (void)count;
    (void)blocks;
}
#endif
