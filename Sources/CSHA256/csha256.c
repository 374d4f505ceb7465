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

__attribute__((target("sha,sse4.1,ssse3")))
void csha256_hardware_compress(uint32_t state[8], const void *data, size_t blocks) {
    const unsigned char *p = (const unsigned char *)data;
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    // The instructions keep the state as ABEF and CDGH.
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);  // CDAB
    __m128i state1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);  // EFGH
    __m128i state0 = _mm_alignr_epi8(tmp, state1, 8);  // ABEF
    state1 = _mm_blend_epi16(state1, tmp, 0xF0);  // CDGH
    while (blocks-- > 0) {
        const __m128i abef = state0, cdgh = state1;
        __m128i m[4];
        for (int i = 0; i < 4; i++) m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), swap);
        for (int g = 0; g < 16; g++) {
            // Rounds 4g…4g+3 with the schedule words m[g % 4].
            __m128i w = m[g & 3];
            __m128i message = _mm_add_epi32(w, _mm_loadu_si128((const __m128i *)&csha256_k[4 * g]));
            state1 = _mm_sha256rnds2_epu32(state1, state0, message);
            if (g >= 3 && g <= 14) {
                // The words of group g+1: finish what msg1 began three groups ago.
                __m128i next = _mm_add_epi32(m[(g + 1) & 3], _mm_alignr_epi8(w, m[(g + 3) & 3], 4));
                m[(g + 1) & 3] = _mm_sha256msg2_epu32(next, w);
            }
            message = _mm_shuffle_epi32(message, 0x0E);
            state0 = _mm_sha256rnds2_epu32(state0, state1, message);
            if (g >= 1 && g <= 12) m[(g + 3) & 3] = _mm_sha256msg1_epu32(m[(g + 3) & 3], w);
        }
        state0 = _mm_add_epi32(state0, abef);
        state1 = _mm_add_epi32(state1, cdgh);
        p += 64;
    }
    tmp = _mm_shuffle_epi32(state0, 0x1B);  // FEBA
    state1 = _mm_shuffle_epi32(state1, 0xB1);  // DCHG
    state0 = _mm_blend_epi16(tmp, state1, 0xF0);  // DCBA
    state1 = _mm_alignr_epi8(state1, tmp, 8);  // HGFE
    _mm_storeu_si128((__m128i *)&state[0], state0);
    _mm_storeu_si128((__m128i *)&state[4], state1);
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

// Two independent messages of `blocks` blocks each, their rounds interleaved:
// one stream waits on each SHA instruction's latency, two keep the unit busy.
__attribute__((target("sha,sse4.1,ssse3")))
void csha256_hardware_compress2(uint32_t stateA[8], const void *dataA, uint32_t stateB[8], const void *dataB, size_t blocks) {
    const unsigned char *pa = (const unsigned char *)dataA;
    const unsigned char *pb = (const unsigned char *)dataB;
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i a0, a1, b0, b1;
    csha256_load(stateA, &a0, &a1);
    csha256_load(stateB, &b0, &b1);
    while (blocks-- > 0) {
        const __m128i abefA = a0, cdghA = a1, abefB = b0, cdghB = b1;
        __m128i ma[4], mb[4];
        for (int i = 0; i < 4; i++) {
            ma[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(pa + 16 * i)), swap);
            mb[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(pb + 16 * i)), swap);
        }
        for (int g = 0; g < 16; g++) {
            const __m128i k = _mm_loadu_si128((const __m128i *)&csha256_k[4 * g]);
            __m128i wa = ma[g & 3], wb = mb[g & 3];
            __m128i xa = _mm_add_epi32(wa, k), xb = _mm_add_epi32(wb, k);
            a1 = _mm_sha256rnds2_epu32(a1, a0, xa);
            b1 = _mm_sha256rnds2_epu32(b1, b0, xb);
            if (g >= 3 && g <= 14) {
                __m128i na = _mm_add_epi32(ma[(g + 1) & 3], _mm_alignr_epi8(wa, ma[(g + 3) & 3], 4));
                __m128i nb = _mm_add_epi32(mb[(g + 1) & 3], _mm_alignr_epi8(wb, mb[(g + 3) & 3], 4));
                ma[(g + 1) & 3] = _mm_sha256msg2_epu32(na, wa);
                mb[(g + 1) & 3] = _mm_sha256msg2_epu32(nb, wb);
            }
            xa = _mm_shuffle_epi32(xa, 0x0E);
            xb = _mm_shuffle_epi32(xb, 0x0E);
            a0 = _mm_sha256rnds2_epu32(a0, a1, xa);
            b0 = _mm_sha256rnds2_epu32(b0, b1, xb);
            if (g >= 1 && g <= 12) {
                ma[(g + 3) & 3] = _mm_sha256msg1_epu32(ma[(g + 3) & 3], wa);
                mb[(g + 3) & 3] = _mm_sha256msg1_epu32(mb[(g + 3) & 3], wb);
            }
        }
        a0 = _mm_add_epi32(a0, abefA);
        a1 = _mm_add_epi32(a1, cdghA);
        b0 = _mm_add_epi32(b0, abefB);
        b1 = _mm_add_epi32(b1, cdghB);
        pa += 64;
        pb += 64;
    }
    csha256_store(stateA, a0, a1);
    csha256_store(stateB, b0, b1);
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
#endif
