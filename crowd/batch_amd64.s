#include "textflag.h"

// The batch kernel, four units per iteration with SSE2: stepUnits (batch.go) step for
// step, so that both give the same bits. Each unit's clip entry is found with scalar
// loads and its first 16 bytes (scale, offset, last, wrapTo) transposed into one
// vector per field; the arithmetic then runs on four lanes with no branch, and the
// four 16-byte Instances are transposed back and stored whole.

// INDEX puts unit j's entry index in AX: species<<8 | clip, or the empty entry's
// when the clip is ≥ 256 or the index is past it.
#define INDEX(j) \
	MOVBLZX j(SI), AX \
	MOVWLZX (2*j)(DX), BX \
	SHLL $8, AX \
	ORL BX, AX \
	CMPL BX, $256 \
	CMOVLCC R8, AX \
	CMPL AX, R8 \
	CMOVLHI R8, AX

// ENTRY loads unit j's entry row into reg: entries[INDEX(j)].
#define ENTRY(j, reg) \
	INDEX(j) \
	SHLQ $5, AX \
	MOVOU (DI)(AX*1), reg

// ENTRYK is ENTRY that also keeps the entry's index ×16 at 4*j(SP), where the
// snapshot entry (16 bytes) of the same index is.
#define ENTRYK(j, reg) \
	INDEX(j) \
	SHLQ $4, AX \
	MOVL AX, (4*j)(SP) \
	MOVOU (DI)(AX*2), reg

// TRANSPOSE4 transposes the 4×4 matrix of 32-bit lanes whose rows are a, b, c, d
// (lane 0 first): afterwards a, b, t1, d hold its columns; c and t2 are clobbered.
#define TRANSPOSE4(a, b, c, d, t1, t2) \
	MOVO a, t1 \
	PUNPCKLLQ b, a \
	PUNPCKHLQ b, t1 \
	MOVO c, t2 \
	PUNPCKLLQ d, c \
	PUNPCKHLQ d, t2 \
	MOVO a, b \
	PUNPCKLQDQ c, a \
	PUNPCKHQDQ c, b \
	MOVO t1, d \
	PUNPCKLQDQ t2, t1 \
	PUNPCKHQDQ t2, d

// ROWS4 is the arithmetic of stepUnits on a group of four units, after their
// entries are transposed into X0 scale, X1 offset, X4 last and X3 wrapTo: the
// phases advanced and settled (stored back, and left in X8), and in X9 frame,
// X7 next and X5 lerp, the rows offset. step4 and step4lod share it.
#define ROWS4 \
	/* q = phase + rate·dt */ \
	MOVUPS (R10), X5 \
	MULPS X14, X5 \
	MOVUPS (R9), X2 \
	ADDPS X5, X2 \
	/* settle(q, true) in X6: q − floor(q), 0 unless in [0,1). floor(q) is trunc(q), */ \
	/* less one where that is above q; out of int32 range the result fails the test. */ \
	CVTTPS2PL X2, X5 \
	CVTPL2PS X5, X5 \
	MOVAPS X2, X6 \
	CMPPS X5, X6, $1 /* q < t */ \
	ANDPS X13, X6 \
	SUBPS X6, X5 \
	MOVAPS X2, X6 \
	SUBPS X5, X6 /* w = q − t */ \
	MOVAPS X6, X7 \
	CMPPS X13, X7, $1 /* w < 1 */ \
	MOVAPS X12, X8 \
	CMPPS X6, X8, $2 /* 0 ≤ w */ \
	ANDPS X8, X7 \
	ANDPS X7, X6 \
	/* settle(q, false) in X7: min(q, 1), 0 unless q ≥ 0. */ \
	MOVAPS X2, X7 \
	MINPS X13, X7 \
	MOVAPS X12, X8 \
	CMPPS X2, X8, $2 /* 0 ≤ q */ \
	ANDPS X8, X7 \
	/* Looping clips (wrapTo ≠ last) take the first. For q in [0,1) both are q. */ \
	MOVO X3, X8 \
	PCMPEQL X4, X8 /* one-shot */ \
	ANDPS X8, X7 \
	ANDNPS X6, X8 \
	ORPS X7, X8 \
	/* ph *= keep, keep = 1 where scale ≠ 0. */ \
	MOVAPS X0, X9 \
	CMPPS X12, X9, $4 /* scale ≠ 0 */ \
	ANDPS X13, X9 \
	MULPS X9, X8 \
	MOVUPS X8, (R9) \
	/* pos = float64(ph)·float64(scale), lanes 0–1 in X5 and 2–3 in X7. */ \
	CVTPS2PD X8, X5 \
	CVTPS2PD X0, X6 \
	MULPD X6, X5 \
	MOVHLPS X8, X7 \
	CVTPS2PD X7, X7 \
	MOVHLPS X0, X6 \
	CVTPS2PD X6, X6 \
	MULPD X6, X7 \
	/* f = min(int32(pos), last) in X9. */ \
	CVTTPD2PL X5, X6 \
	CVTTPD2PL X7, X9 \
	PUNPCKLQDQ X9, X6 \
	MOVO X6, X9 \
	PCMPGTL X4, X9 /* f > last */ \
	MOVO X4, X10 \
	PAND X9, X10 \
	PANDN X6, X9 \
	POR X10, X9 \
	/* lerp = float32(pos − float64(f)) in X5. */ \
	CVTPL2PD X9, X6 \
	SUBPD X6, X5 \
	CVTPD2PS X5, X5 \
	PSHUFL $0x0e, X9, X6 \
	CVTPL2PD X6, X6 \
	SUBPD X6, X7 \
	CVTPD2PS X7, X7 \
	MOVLHPS X7, X5 \
	/* next = f+1, or wrapTo past last, in X7; both rows offset. */ \
	MOVO X9, X6 \
	PSUBL X11, X6 \
	MOVO X6, X7 \
	PCMPGTL X4, X7 /* f+1 > last */ \
	PAND X7, X3 \
	PANDN X6, X7 \
	POR X3, X7 \
	PADDL X1, X9 \
	PADDL X1, X7

// STORE4 writes a group's four Instances from X9 frame, X7 next and X5 lerp
// (with each unit's clip and species) and moves the unit pointers on.
#define STORE4 \
	/* clip | species<<16 in X6. */ \
	MOVQ (DX), X6 \
	MOVL (SI), X10 \
	PUNPCKLBW X12, X10 \
	PUNPCKLWL X10, X6 \
	/* Fields (frame X9, next X7, lerp X5, clip/species X6) → Instances X9 X7 X8 X6. */ \
	TRANSPOSE4(X9, X7, X5, X6, X8, X10) \
	MOVOU X9, (R11) \
	MOVOU X7, 16(R11) \
	MOVOU X8, 32(R11) \
	MOVOU X6, 48(R11) \
	ADDQ $4, SI \
	ADDQ $8, DX \
	ADDQ $16, R9 \
	ADDQ $16, R10 \
	ADDQ $64, R11

// SLICES loads the pointers and group count that all four kernels take: DI
// entries, SI species, DX clips, R9 phase, R10 rate, R11 out, CX groups.
#define SLICES \
	MOVQ entries+0(FP), DI \
	MOVQ species+16(FP), SI \
	MOVQ clips+24(FP), DX \
	MOVQ phase+32(FP), R9 \
	MOVQ rate+40(FP), R10 \
	MOVQ out+48(FP), R11 \
	MOVQ groups+56(FP), CX

// ARGS4 loads the arguments step4 and step4lod share (SLICES, and R8 empty), and
// the constants: X14 dt, X13 1.0, X12 0 and X11 −1 (int), each ×4.
#define ARGS4 \
	SLICES \
	MOVQ empty+8(FP), R8 \
	MOVSS dt+64(FP), X14 \
	SHUFPS $0, X14, X14 \
	MOVL $0x3f800000, AX \
	MOVL AX, X13 \
	SHUFPS $0, X13, X13 \
	PXOR X12, X12 \
	PCMPEQL X11, X11

// The same kernel eight units at a time with AVX2 (step8), for machines that
// have it: the entries still found with scalar loads (units 4–7 into the upper
// halves), the arithmetic on eight lanes, the float64 part in two halves. Each
// binary operation keeps SSE2's first operand first, so that NaNs propagate the
// same and the bits stay the Go kernel's.

// ARGS8 loads the arguments step8 and step8lod share (SLICES), and the
// constants: Y14 dt, Y13 1.0, Y12 0 and Y11 −1 (int), each ×8.
#define ARGS8 \
	SLICES \
	VBROADCASTSS dt+64(FP), Y14 \
	MOVL $0x3f800000, AX \
	MOVL AX, X13 \
	VPBROADCASTD X13, Y13 \
	VPXOR Y12, Y12, Y12 \
	VPCMPEQD Y11, Y11, Y11

// INDEX8 computes the eight units' entry indices ×16 as INDEX finds them
// (species<<8 | clip, the empty entry's when the clip is ≥ 256 or the index is
// past it) and spills them to 0(SP): an entry is at twice that, a snapshot
// entry at it. Y10 and Y15 are set from empty and Y11 each time, so that the
// level pass may use them.
#define INDEX8 \
	VPBROADCASTD empty+8(FP), Y15 \
	VPSRLD $24, Y11, Y10 /* 255 */ \
	VPMOVZXBD (SI), Y0 \
	VPMOVZXWD (DX), Y1 \
	VPSLLD $8, Y0, Y0 \
	VPOR Y1, Y0, Y0 \
	VPCMPGTD Y10, Y1, Y2 \
	VPCMPGTD Y15, Y0, Y3 \
	VPOR Y3, Y2, Y2 \
	VPBLENDVB Y2, Y15, Y0, Y0 \
	VPSLLD $4, Y0, Y0 \
	VMOVDQU Y0, 0(SP)

// ROW8 loads unit j's 16-byte row into the low half of reg and unit k's (j+4)
// into its high half, at base + scale × the offset spilled at 4·j(SP).
#define ROW8(j, k, base, scale, reg, xreg) \
	MOVL (4*j)(SP), AX \
	VMOVDQU (base)(AX*scale), xreg \
	MOVL (4*k)(SP), AX \
	VINSERTI128 $1, (base)(AX*scale), reg, reg

// TRANSPOSE8 transposes, within each half, the 4×4 matrices whose rows are a,
// b, c, d: afterwards c, d, t, a hold its columns (b and u are clobbered).
#define TRANSPOSE8(a, b, c, d, t, u) \
	VPUNPCKLDQ b, a, t \
	VPUNPCKHDQ b, a, u \
	VPUNPCKLDQ d, c, a \
	VPUNPCKHDQ d, c, b \
	VPUNPCKLQDQ a, t, c \
	VPUNPCKHQDQ a, t, d \
	VPUNPCKLQDQ b, u, t \
	VPUNPCKHQDQ b, u, a

// ROWS8 is ROWS4 on eight lanes, after the entries are transposed into Y0
// scale, Y1 offset, Y4 last and Y3 wrapTo: the phases advanced, settled and
// stored back (left in Y8), and in Y9 frame, Y7 next and Y5 lerp, the rows
// offset. Each binary operation keeps SSE2's first operand first, so that NaNs
// propagate the same and the bits stay the Go kernel's.
#define ROWS8 \
	/* q = phase + rate·dt */ \
	VMOVUPS (R10), Y5 \
	VMULPS Y14, Y5, Y5 \
	VMOVUPS (R9), Y2 \
	VADDPS Y5, Y2, Y2 \
	/* settle(q, true) in Y6 */ \
	VCVTTPS2DQ Y2, Y5 \
	VCVTDQ2PS Y5, Y5 \
	VCMPPS $1, Y5, Y2, Y6 /* q < t */ \
	VANDPS Y13, Y6, Y6 \
	VSUBPS Y6, Y5, Y5 \
	VSUBPS Y5, Y2, Y6 /* w = q − floor(q) */ \
	VCMPPS $1, Y13, Y6, Y7 /* w < 1 */ \
	VCMPPS $2, Y6, Y12, Y8 /* 0 ≤ w */ \
	VANDPS Y8, Y7, Y7 \
	VANDPS Y7, Y6, Y6 \
	/* settle(q, false) in Y7: min(q, 1), 0 unless q ≥ 0 */ \
	VMINPS Y13, Y2, Y7 \
	VCMPPS $2, Y2, Y12, Y8 /* 0 ≤ q */ \
	VANDPS Y8, Y7, Y7 \
	/* one-shot clips (wrapTo = last) take the second */ \
	VPCMPEQD Y4, Y3, Y8 \
	VANDPS Y8, Y7, Y7 \
	VANDNPS Y6, Y8, Y8 \
	VORPS Y7, Y8, Y8 \
	/* ph *= keep (1 where scale ≠ 0) */ \
	VCMPPS $4, Y12, Y0, Y9 \
	VANDPS Y13, Y9, Y9 \
	VMULPS Y9, Y8, Y8 \
	VMOVUPS Y8, (R9) \
	RESOLVE8

// RESOLVE8 is the rows of ROWS8 from the phases in Y8 (and the entries in Y0,
// Y1, Y4, Y3): Y9 frame, Y7 next and Y5 lerp. rows8 runs it alone.
#define RESOLVE8 \
	/* pos = float64(ph)·float64(scale): units 0–3 in Y5, 4–7 in Y7 */ \
	VCVTPS2PD X8, Y5 \
	VCVTPS2PD X0, Y6 \
	VMULPD Y6, Y5, Y5 \
	VEXTRACTF128 $1, Y8, X7 \
	VCVTPS2PD X7, Y7 \
	VEXTRACTF128 $1, Y0, X6 \
	VCVTPS2PD X6, Y6 \
	VMULPD Y6, Y7, Y7 \
	/* f = min(int32(pos), last) in Y9 */ \
	VCVTTPD2DQY Y5, X6 \
	VCVTTPD2DQY Y7, X9 \
	VINSERTI128 $1, X9, Y6, Y9 \
	VPMINSD Y4, Y9, Y9 \
	/* lerp = float32(pos − float64(f)) in Y5 */ \
	VCVTDQ2PD X9, Y6 \
	VSUBPD Y6, Y5, Y5 \
	VCVTPD2PSY Y5, X5 \
	VEXTRACTI128 $1, Y9, X6 \
	VCVTDQ2PD X6, Y6 \
	VSUBPD Y6, Y7, Y7 \
	VCVTPD2PSY Y7, X7 \
	VINSERTF128 $1, X7, Y5, Y5 \
	/* next = f+1, or wrapTo past last, in Y7; both rows offset */ \
	VPSUBD Y11, Y9, Y6 \
	VPCMPGTD Y4, Y6, Y7 \
	VPBLENDVB Y7, Y3, Y6, Y7 \
	VPADDD Y1, Y9, Y9 \
	VPADDD Y1, Y7, Y7

// RESOLVE8F is RESOLVE8 in float32 with fused multiply-adds, for phases in
// [0, 1] (or −0), the bits RESOLVE8 gives them: pos = ph·scale is hi + lo
// exactly (hi = fl(pos), nlo = hi − pos by one FMA); f = trunc(hi), one less
// where hi is whole and pos below it, at most last; hi − f is exact (f ≤ hi ≤
// f+1 and Sterbenz), and (hi − f) − nlo rounds pos − f once, as float32(pos −
// float64(f)) does. Y10 is scratch; Y12 is 0.
#define RESOLVE8F \
	VMULPS Y0, Y8, Y5 /* hi */ \
	VMOVAPS Y5, Y7 \
	VFNMADD231PS Y0, Y8, Y7 /* nlo = hi − ph·scale */ \
	VCVTTPS2DQ Y5, Y9 \
	VCVTDQ2PS Y9, Y6 \
	VCMPPS $0, Y6, Y5, Y6 /* hi whole */ \
	VCMPPS $1, Y7, Y12, Y10 /* pos < hi */ \
	VANDPS Y10, Y6, Y6 \
	VPADDD Y6, Y9, Y9 \
	VPMINSD Y4, Y9, Y9 /* f */ \
	VCVTDQ2PS Y9, Y6 \
	VSUBPS Y6, Y5, Y5 \
	VSUBPS Y7, Y5, Y5 /* lerp */ \
	/* next = f+1, or wrapTo past last, in Y7; both rows offset */ \
	VPSUBD Y11, Y9, Y6 \
	VPCMPGTD Y4, Y6, Y7 \
	VPBLENDVB Y7, Y3, Y6, Y7 \
	VPADDD Y1, Y9, Y9 \
	VPADDD Y1, Y7, Y7

// ENTRIES8 loads and transposes the eight units' entries (indices from INDEX8):
// Y0 scale, Y1 offset, Y4 last, Y3 wrapTo.
#define ENTRIES8 \
	ROW8(0, 4, DI, 2, Y0, X0) \
	ROW8(1, 5, DI, 2, Y1, X1) \
	ROW8(2, 6, DI, 2, Y2, X2) \
	ROW8(3, 7, DI, 2, Y3, X3) \
	TRANSPOSE8(Y0, Y1, Y2, Y3, Y4, Y5) \
	/* columns in Y2, Y3, Y4, Y0: scale, offset, last, wrapTo */ \
	VMOVDQA Y0, Y6 \
	VMOVDQA Y2, Y0 \
	VMOVDQA Y3, Y1 \
	VMOVDQA Y6, Y3

// BYTES8 stores the eight small values (0–255) of src's lanes as eight bytes at
// dst; t and xt, xu are scratch.
#define BYTES8(src, t, xt, xu, dst) \
	VPACKSSDW src, src, t \
	VPACKUSWB t, t, t \
	VEXTRACTI128 $1, t, xu \
	VPUNPCKLDQ xu, xt, xt \
	VMOVQ xt, dst

// STORE8 writes a group's eight Instances from Y9 frame, Y7 next and Y5 lerp
// (with each unit's clip and species) and moves the unit pointers on.
#define STORE8 \
	/* clip | species<<16 in Y6 */ \
	VPMOVZXWD (DX), Y6 \
	VPMOVZXBD (SI), Y2 \
	VPSLLD $16, Y2, Y2 \
	VPOR Y2, Y6, Y6 \
	/* Fields → Instances: Y3 units 0|4, Y4 1|5, Y5 2|6, Y6 3|7 */ \
	VPUNPCKLDQ Y7, Y9, Y0 \
	VPUNPCKHDQ Y7, Y9, Y1 \
	VPUNPCKLDQ Y6, Y5, Y8 \
	VPUNPCKHDQ Y6, Y5, Y2 \
	VPUNPCKLQDQ Y8, Y0, Y3 \
	VPUNPCKHQDQ Y8, Y0, Y4 \
	VPUNPCKLQDQ Y2, Y1, Y5 \
	VPUNPCKHQDQ Y2, Y1, Y6 \
	VMOVDQU X3, (R11) \
	VMOVDQU X4, 16(R11) \
	VMOVDQU X5, 32(R11) \
	VMOVDQU X6, 48(R11) \
	VEXTRACTI128 $1, Y3, 64(R11) \
	VEXTRACTI128 $1, Y4, 80(R11) \
	VEXTRACTI128 $1, Y5, 96(R11) \
	VEXTRACTI128 $1, Y6, 112(R11) \
	ADDQ $8, SI \
	ADDQ $16, DX \
	ADDQ $32, R9 \
	ADDQ $32, R10 \
	ADDQ $128, R11

// func step4(entries *clipEntry, empty int, species *uint8, clips *uint16, phase, rate *float32, out *Instance, groups int, dt float32)
TEXT ·step4(SB), NOSPLIT, $0-68
	ARGS4

loop:
	ENTRY(0, X0)
	ENTRY(1, X1)
	ENTRY(2, X2)
	ENTRY(3, X3)

	// Rows → fields: X0 scale, X1 offset, X4 last, X3 wrapTo.
	TRANSPOSE4(X0, X1, X2, X3, X4, X5)
	ROWS4

	STORE4
	DECQ CX
	JNZ loop
	RET

// func step4lod(entries *clipEntry, empty int, species *uint8, clips *uint16, phase, rate *float32, out *Instance, groups int, dt float32,
//	snaps *snapEntry, bands *lodBands, dist *float32, band, level *uint8) int
//
// step4 with the level of detail chosen in the same pass (stepUnitsLOD, lod.go):
// after a group's rows are worked out, its snapshot entries (found by the same
// index, kept in the frame) and its species' band boundaries are transposed like
// the clip entries, the bands move with hysteresis and the far units' rows are
// floored or replaced by snapshot frames, all on four lanes with no branch. X15
// counts the units whose band stayed; the result is the rest.
TEXT ·step4lod(SB), NOSPLIT, $16-120
	ARGS4
	PXOR X15, X15              // units whose band stayed, per lane
	MOVQ dist+88(FP), R12
	MOVQ band+96(FP), R13
	MOVQ level+104(FP), R14

lodloop:
	ENTRYK(0, X0)
	ENTRYK(1, X1)
	ENTRYK(2, X2)
	ENTRYK(3, X3)

	// Rows → fields: X0 scale, X1 offset, X4 last, X3 wrapTo.
	TRANSPOSE4(X0, X1, X2, X3, X4, X5)
	ROWS4

	// Level of detail. The snapshot entries, by the clip entries' index: X0
	// scale, X1 offset, X4 last, X3 ok (all ones where the clip has a snapshot).
	MOVQ snaps+72(FP), BX
	MOVL 0(SP), AX
	MOVOU (BX)(AX*1), X0
	MOVL 4(SP), AX
	MOVOU (BX)(AX*1), X1
	MOVL 8(SP), AX
	MOVOU (BX)(AX*1), X2
	MOVL 12(SP), AX
	MOVOU (BX)(AX*1), X3
	TRANSPOSE4(X0, X1, X2, X3, X4, X6)

	// The snapshot row offset + min(int32(float64(ph)·float64(scale)), last) in X6.
	CVTPS2PD X8, X2
	CVTPS2PD X0, X6
	MULPD X6, X2
	MOVHLPS X8, X10
	CVTPS2PD X10, X10
	MOVHLPS X0, X6
	CVTPS2PD X6, X6
	MULPD X6, X10
	CVTTPD2PL X2, X2
	CVTTPD2PL X10, X10
	PUNPCKLQDQ X10, X2
	MOVO X2, X6
	PCMPGTL X4, X6             // f > last
	PAND X6, X4
	PANDN X2, X6
	POR X4, X6
	PADDL X1, X6

	// The species' boundaries: X0 up[0], X1 up[1], X10 down[0], X4 down[1].
	MOVQ bands+80(FP), BX
	MOVBLZX 0(SI), AX
	SHLL $4, AX
	MOVOU (BX)(AX*1), X0
	MOVBLZX 1(SI), AX
	SHLL $4, AX
	MOVOU (BX)(AX*1), X1
	MOVBLZX 2(SI), AX
	SHLL $4, AX
	MOVOU (BX)(AX*1), X2
	MOVBLZX 3(SI), AX
	SHLL $4, AX
	MOVOU (BX)(AX*1), X4
	TRANSPOSE4(X0, X1, X2, X4, X10, X8)

	// up and down: how many boundaries d is beyond, the sign bits of t − d.
	MOVUPS (R12), X2
	SUBPS X2, X0
	PSRLL $31, X0
	SUBPS X2, X1
	PSRLL $31, X1
	PADDL X1, X0
	SUBPS X2, X10
	PSRLL $31, X10
	SUBPS X2, X4
	PSRLL $31, X4
	PADDL X4, X10

	// band = min(max(old, up), down) in X2; the small values fit the words.
	MOVSS (R13), X1
	PUNPCKLBW X12, X1
	PUNPCKLWL X12, X1
	MOVO X1, X2
	PMAXSW X0, X2
	PMINSW X10, X2
	PCMPEQL X2, X1
	PSUBL X1, X15              // count the units whose band stayed
	MOVO X2, X0
	PACKSSLW X0, X0
	PACKUSWB X0, X0
	MOVSS X0, (R13)

	// level = band, one nearer in the snapshot band without a snapshot of the
	// clip: band>>1 is 1 in the snapshot band (bands are 0, 1, 2).
	MOVO X2, X1
	PSRLL $1, X1
	PANDN X1, X3               // snapshot band and no snapshot: 1
	PSUBL X3, X2
	MOVO X2, X4
	PACKSSLW X4, X4
	PACKUSWB X4, X4
	MOVSS X4, (R14)
	MOVO X2, X0
	PSLLL $30, X0
	PSRAL $31, X0              // level = snapshot: its bit 1 spread
	PCMPGTL X12, X2            // level > full

	// frame: the snapshot row at LevelSnapshot; next = frame and lerp = 0 beyond full.
	PAND X0, X6
	PANDN X9, X0
	POR X6, X0
	MOVO X0, X9
	MOVO X2, X4
	PANDN X5, X4
	MOVO X4, X5
	MOVO X2, X1
	PAND X9, X1
	PANDN X7, X2
	POR X1, X2
	MOVO X2, X7

	STORE4
	ADDQ $16, R12
	ADDQ $4, R13
	ADDQ $4, R14
	DECQ CX
	JNZ lodloop

	// switches = 4·groups − the lanes' counts
	PSHUFL $0x4e, X15, X0
	PADDL X0, X15
	PSHUFL $0xb1, X15, X0
	PADDL X0, X15
	MOVL X15, AX
	MOVQ groups+56(FP), CX
	SHLQ $2, CX
	SUBQ AX, CX
	MOVQ CX, ret+112(FP)
	RET

// func prefetch(base unsafe.Pointer, shift uint, idx *int32, n int)
//
// Asks for the cache line of base + idx[k]<<shift, k < n, without waiting for it:
// a prefetch retires at once, so the misses overlap whatever work follows.
TEXT ·prefetch(SB), NOSPLIT, $0-32
	MOVQ base+0(FP), DI
	MOVQ shift+8(FP), CX
	MOVQ idx+16(FP), SI
	MOVQ n+24(FP), DX
	TESTQ DX, DX
	JLE done
more:
	MOVLQSX (SI), AX
	SHLQ CX, AX
	PREFETCHT0 (DI)(AX*1)
	ADDQ $4, SI
	DECQ DX
	JNZ more
done:
	RET

// func prefetchLines(p *[4]unsafe.Pointer)
TEXT ·prefetchLines(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	MOVQ 0(AX), BX
	PREFETCHT0 (BX)
	MOVQ 8(AX), BX
	PREFETCHT0 (BX)
	MOVQ 16(AX), BX
	PREFETCHT0 (BX)
	MOVQ 24(AX), BX
	PREFETCHT0 (BX)
	RET

// func step8(entries *clipEntry, empty int, species *uint8, clips *uint16, phase, rate *float32, out *Instance, groups int, dt float32)
TEXT ·step8(SB), NOSPLIT, $32-68
	ARGS8

loop8:
	INDEX8
	ENTRIES8
	ROWS8
	STORE8
	DECQ CX
	JNZ loop8
	VZEROUPPER
	RET

// func step8lod(entries *clipEntry, empty int, species *uint8, clips *uint16, phase, rate *float32, out *Instance, groups int, dt float32,
//	snaps *snapEntry, bands *lodBands, dist *float32, band, level *Level) int
TEXT ·step8lod(SB), NOSPLIT, $40-120
	ARGS8
	MOVQ dist+88(FP), R12
	MOVQ band+96(FP), R13
	MOVQ level+104(FP), R14
	MOVQ $0, 32(SP) // units whose band stayed

lod8:
	INDEX8
	ENTRIES8
	ROWS8

	// Level of detail. The snapshot entries, by the clip entries' index: Y2
	// scale, Y3 offset, Y4 last, Y0 ok (all ones where the clip has a snapshot).
	MOVQ snaps+72(FP), BX
	ROW8(0, 4, BX, 1, Y0, X0)
	ROW8(1, 5, BX, 1, Y1, X1)
	ROW8(2, 6, BX, 1, Y2, X2)
	ROW8(3, 7, BX, 1, Y3, X3)
	TRANSPOSE8(Y0, Y1, Y2, Y3, Y4, Y6)

	// The snapshot row offset + min(int32(float64(ph)·float64(scale)), last) in Y6.
	VCVTPS2PD X8, Y1
	VCVTPS2PD X2, Y6
	VMULPD Y6, Y1, Y1
	VCVTTPD2DQY Y1, X1
	VEXTRACTF128 $1, Y8, X6
	VCVTPS2PD X6, Y6
	VEXTRACTF128 $1, Y2, X2
	VCVTPS2PD X2, Y2
	VMULPD Y2, Y6, Y6
	VCVTTPD2DQY Y6, X6
	VINSERTI128 $1, X6, Y1, Y6
	VPMINSD Y4, Y6, Y6
	VPADDD Y3, Y6, Y6

	// The species' boundaries: Y3 up[0], Y4 up[1], Y8 down[0], Y1 down[1].
	VPMOVZXBD (SI), Y1
	VPSLLD $4, Y1, Y1
	VMOVDQU Y1, 0(SP)
	MOVQ bands+80(FP), BX
	ROW8(0, 4, BX, 1, Y1, X1)
	ROW8(1, 5, BX, 1, Y2, X2)
	ROW8(2, 6, BX, 1, Y3, X3)
	ROW8(3, 7, BX, 1, Y4, X4)
	TRANSPOSE8(Y1, Y2, Y3, Y4, Y8, Y10)

	// up and down: how many boundaries d is beyond, the sign bits of t − d.
	VMOVUPS (R12), Y2
	VSUBPS Y2, Y3, Y3
	VPSRLD $31, Y3, Y3
	VSUBPS Y2, Y4, Y4
	VPSRLD $31, Y4, Y4
	VPADDD Y4, Y3, Y3
	VSUBPS Y2, Y8, Y8
	VPSRLD $31, Y8, Y8
	VSUBPS Y2, Y1, Y1
	VPSRLD $31, Y1, Y1
	VPADDD Y1, Y8, Y8

	// band = min(max(old, up), down) in Y2, stored as bytes; count the units
	// whose band stayed.
	VPMOVZXBD (R13), Y4
	VPMAXSD Y3, Y4, Y2
	VPMINSD Y8, Y2, Y2
	VPCMPEQD Y2, Y4, Y4
	VMOVMSKPS Y4, AX
	POPCNTL AX, AX
	ADDQ AX, 32(SP)
	BYTES8(Y2, Y1, X1, X3, (R13))

	// level = band, one nearer in the snapshot band without a snapshot of the
	// clip: band>>1 is 1 in the snapshot band (bands are 0, 1, 2).
	VPSRLD $1, Y2, Y1
	VPANDN Y1, Y0, Y1
	VPSUBD Y1, Y2, Y2
	BYTES8(Y2, Y1, X1, X3, (R14))
	VPSLLD $30, Y2, Y0
	VPSRAD $31, Y0, Y0 // level = snapshot: its bit 1 spread
	VPCMPGTD Y12, Y2, Y2 // level > full

	// frame: the snapshot row at LevelSnapshot; next = frame and lerp = 0 beyond full.
	VPBLENDVB Y0, Y6, Y9, Y9
	VPANDN Y5, Y2, Y5
	VPBLENDVB Y2, Y9, Y7, Y7

	STORE8
	ADDQ $32, R12
	ADDQ $8, R13
	ADDQ $8, R14
	DECQ CX
	JNZ lod8

	// switches = 8·groups − the units whose band stayed
	MOVQ groups+56(FP), CX
	SHLQ $3, CX
	SUBQ 32(SP), CX
	MOVQ CX, ret+112(FP)
	VZEROUPPER
	RET

// func rows8(entries *clipEntry, empty int, species *uint8, clips *uint16, phase *float32, out *Instance, groups int, fma bool)
//
// putRowsGo for groups×8 units, eight at a time with AVX2: step8 without the
// phase's advance (Crowd.Animate advances phases by its own rules). With fma,
// a group whose phases are all in [0, 1] (or −0), as Animate leaves them, is
// resolved by RESOLVE8F.
TEXT ·rows8(SB), NOSPLIT, $32-57
	MOVQ entries+0(FP), DI
	MOVQ species+16(FP), SI
	MOVQ clips+24(FP), DX
	MOVQ phase+32(FP), R9
	MOVQ out+40(FP), R11
	MOVQ groups+48(FP), CX
	MOVBQZX fma+56(FP), R12
	VPXOR Y12, Y12, Y12
	VPCMPEQD Y11, Y11, Y11
	MOVL $0x3f800000, AX
	MOVL AX, X13
	VPBROADCASTD X13, Y13 // 1.0

rowsloop8:
	INDEX8
	ENTRIES8
	VMOVUPS (R9), Y8
	TESTQ R12, R12
	JZ rows64
	VCMPPS $2, Y13, Y8, Y5 // ph ≤ 1
	VCMPPS $2, Y8, Y12, Y6 // 0 ≤ ph
	VANDPS Y6, Y5, Y5
	VMOVMSKPS Y5, AX
	CMPL AX, $0xff
	JNE rows64
	RESOLVE8F
	JMP rowsout
rows64:
	RESOLVE8
rowsout:
	STORE8
	DECQ CX
	JNZ rowsloop8
	VZEROUPPER
	RET

// Constants of select8, a 32-bit lane each: unit.MoveThreshold, the flag bits
// (0xFFF), the last variant (7), 1.0, −1.0, the largest float32 below 1 (as
// bits), gaitSnap and 1 − gaitSnap.
DATA selk<>+0(SB)/4, $0x3d4ccccd
DATA selk<>+4(SB)/4, $0xfff
DATA selk<>+8(SB)/4, $7
DATA selk<>+12(SB)/4, $0x3f800000
DATA selk<>+16(SB)/4, $0xbf800000
DATA selk<>+20(SB)/4, $0x3f7fffff
DATA selk<>+24(SB)/4, $0x3a83126f
DATA selk<>+28(SB)/4, $0x3f7fbe77
GLOBL selk<>(SB), RODATA|NOPTR, $32

// ROWAT is ROW8 with the offsets spilled at off(SP) and the rows at disp(base).
#define ROWAT(off, disp, j, k, base, reg, xreg) \
	MOVL (off+4*j)(SP), AX \
	VMOVDQU disp(base)(AX*1), xreg \
	MOVL (off+4*k)(SP), AX \
	VINSERTI128 $1, disp(base)(AX*1), reg, reg

// func select8(a *selectArgs, start, groups int, left *uint8) uint32
//
// selection.units eight units at a time, for groups×8 units from start: each
// unit's state from the state table (one gather), its pick (found as units
// finds it, loaded and transposed like the clip entries), its rate (the pick's,
// or its speed blend's), its swing, its phase advanced and kept. A unit whose
// species is past maxID, whose clip changes, or that blends two gaits (its
// weight strictly between 0 and 1, with Blend) is left:
// its phase, rate, state and gait weight are written back as they were, and its
// bit set in the group's byte of left, for Go. Each operation is the scalar
// one, in its order, lane by lane, and settle is ROWS8's: the same bits.
//
// With the memo (memoKey not nil) each group's key (memo) is worked out
// first; where memoRead is set and all eight keys and clips are the memo's,
// the state, clip, rule, speed blend, base and perSpeed come from the memo
// and the state table and the picks are skipped. Otherwise the group is
// chosen as above and the memo written: each lane's key, or noKey where the
// species is past maxID.
//
// Frame: 0 pick offsets, 32 pair offsets, 64 state, 96 left, 128 seen, 160
// speed, 192 clip, 224 rate, 256 rule, 288 pair lanes, 320 key.
TEXT ·select8(SB), NOSPLIT, $352-36
	MOVQ a+0(FP), BX
	MOVQ start+8(FP), CX
	MOVQ groups+16(FP), DX
	MOVQ left+24(FP), R8
	VPXOR Y15, Y15, Y15 // seen

group8:
	// The state table's index flags&0xFFF | moving<<12 | (weapon&3)<<13 in Y0
	MOVQ 40(BX), AX
	VPMOVZXWD (AX)(CX*2), Y0
	VPBROADCASTD selk<>+4(SB), Y1
	VPAND Y1, Y0, Y0
	MOVQ 56(BX), AX
	VMOVUPS (AX)(CX*4), Y1
	VMOVUPS Y1, 160(SP)
	VBROADCASTSS selk<>+0(SB), Y2
	VCMPPS $1, Y1, Y2, Y2 // MoveThreshold < speed
	VPSRLD $31, Y2, Y2
	VPSLLD $12, Y2, Y2
	VPOR Y2, Y0, Y0
	MOVQ 48(BX), AX
	VPMOVZXBD (AX)(CX*1), Y2
	VPSLLD $30, Y2, Y2
	VPSRLD $17, Y2, Y2
	VPOR Y2, Y0, Y0

	// Y5 species, Y6 archetype (a<<16 kept for seen), Y7 min(variant, 7)
	MOVQ 16(BX), AX
	VPMOVZXBD (AX)(CX*1), Y5
	MOVQ 24(BX), AX
	VPMOVZXBD (AX)(CX*1), Y6
	VPSLLD $16, Y6, Y3
	VMOVDQU Y3, 128(SP) // a<<16
	MOVQ 32(BX), AX
	VPMOVZXBD (AX)(CX*1), Y7
	VPBROADCASTD selk<>+8(SB), Y3
	VPMINUD Y3, Y7, Y7

	// key = index | (a&7)<<15 | min(v, 7)<<18 | s<<21 (memo)
	MOVQ 128(BX), AX
	TESTQ AX, AX
	JZ choose8
	VPSLLD $29, Y6, Y8
	VPSRLD $14, Y8, Y8
	VPOR Y0, Y8, Y8
	VPSLLD $18, Y7, Y9
	VPOR Y9, Y8, Y8
	VPSLLD $21, Y5, Y9
	VPOR Y9, Y8, Y8
	VMOVDQU Y8, 320(SP)
	CMPL 160(BX), $0
	JEQ choose8

	// The memo holds the group when its eight keys are the memo's and the
	// memo's clips the units' clips.
	VPCMPEQD (AX)(CX*4), Y8, Y8
	MOVQ 136(BX), AX
	VMOVDQU (AX)(CX*4), Y10 // sel: clip | state<<16 | rule<<24
	VPSLLD $17, Y10, Y11
	VPSRLD $17, Y11, Y11
	MOVQ 72(BX), AX
	VPMOVZXWD (AX)(CX*2), Y12
	VPCMPEQD Y12, Y11, Y11
	VPAND Y11, Y8, Y8
	VMOVMSKPS Y8, AX
	CMPL AX, $0xff
	JNE choose8

	// From the memo: the state, seen |= clip | a<<16, the rule, no unit left;
	// Y2 clip | pair<<16 (a speed blend's pair is kept where its base would
	// be, which its rate does not use), Y3 base (0 with a pair), Y4
	// perSpeed, Y6 clip & 0x7fff; the rate as the picks give it.
	VPSLLD $8, Y10, Y0
	VPSRLD $24, Y0, Y0
	VMOVDQU Y0, 64(SP)
	VPSLLD $16, Y10, Y2
	VPSRLD $16, Y2, Y2
	VPOR 128(SP), Y2, Y0
	VMOVDQU Y0, 128(SP)
	VPSLLD $4, Y10, Y0
	VPSRLD $28, Y0, Y0
	VMOVDQU Y0, 256(SP)
	VPXOR Y0, Y0, Y0
	VMOVDQU Y0, 96(SP)
	VPSLLD $3, Y10, Y0
	VPSRAD $31, Y0, Y0 // a pair
	MOVQ 144(BX), AX
	VMOVUPS (AX)(CX*4), Y3
	VPAND Y3, Y0, Y5
	VPSLLD $16, Y5, Y5
	VPOR Y5, Y2, Y2
	VPANDN Y3, Y0, Y3
	MOVQ 152(BX), AX
	VMOVUPS (AX)(CX*4), Y4
	VPSLLD $17, Y10, Y6
	VPSRLD $17, Y6, Y6
	JMP rate8

choose8:
	// st = states[index] in Y4
	MOVQ 0(BX), AX
	VPCMPEQD Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPGATHERDD Y3, (AX)(Y0*1), Y4
	VPSLLD $24, Y4, Y4
	VPSRLD $24, Y4, Y4
	VMOVDQU Y4, 64(SP)

	// k = s<<10 | (a&7)<<7 | st<<3 | min(v, 7), 0 where s > maxID (left)
	VPBROADCASTD 120(BX), Y1
	VPCMPGTD Y1, Y5, Y1 // s > maxID
	VMOVDQU Y1, 96(SP)
	VPSLLD $10, Y5, Y0
	VPSLLD $29, Y6, Y2
	VPSRLD $22, Y2, Y2
	VPOR Y2, Y0, Y0
	VPSLLD $3, Y4, Y2
	VPOR Y2, Y0, Y0
	VPOR Y7, Y0, Y0
	VPANDN Y0, Y1, Y0
	VPSLLD $4, Y0, Y0
	VMOVDQU Y0, 0(SP)

	// The picks: Y2 clip | pair<<16, Y3 base, Y4 perSpeed, Y0 rule.
	MOVQ 8(BX), DI
	ROWAT(0, 0, 0, 4, DI, Y0, X0)
	ROWAT(0, 0, 1, 5, DI, Y1, X1)
	ROWAT(0, 0, 2, 6, DI, Y2, X2)
	ROWAT(0, 0, 3, 7, DI, Y3, X3)
	TRANSPOSE8(Y0, Y1, Y2, Y3, Y4, Y5)
	VMOVDQU Y0, 256(SP)

	// The memo: each lane's key, or noKey where its species is past maxID;
	// its clip | state<<16 | rule<<24 | (a pair)<<28, base or, with a pair,
	// the pair, and perSpeed.
	MOVQ 128(BX), AX
	TESTQ AX, AX
	JZ chosen8
	VMOVDQU 96(SP), Y5 // s > maxID
	VPOR 320(SP), Y5, Y5
	VMOVDQU Y5, (AX)(CX*4)
	VPSRLD $16, Y2, Y5
	VPXOR Y6, Y6, Y6
	VPCMPEQD Y6, Y5, Y6
	VPCMPEQD Y7, Y7, Y7
	VPXOR Y7, Y6, Y6 // a pair
	VBLENDVPS Y6, Y5, Y3, Y7 // the pair where there is one, else base
	MOVQ 144(BX), AX
	VMOVUPS Y7, (AX)(CX*4)
	VPSRLD $31, Y6, Y6
	VPSLLD $28, Y6, Y6
	VPSLLD $16, Y2, Y5
	VPSRLD $16, Y5, Y5
	VPOR Y6, Y5, Y5
	VMOVDQU 64(SP), Y6
	VPSLLD $16, Y6, Y6
	VPOR Y6, Y5, Y5
	VPSLLD $24, Y0, Y6
	VPOR Y6, Y5, Y5
	MOVQ 136(BX), AX
	VMOVDQU Y5, (AX)(CX*4)
	MOVQ 152(BX), AX
	VMOVUPS Y4, (AX)(CX*4)

chosen8:
	// seen |= clip | a<<16; cl = clip & 0x7fff in Y6; left where cl ≠ the old clip.
	VPSLLD $16, Y2, Y6
	VPSRLD $16, Y6, Y6
	VPOR 128(SP), Y6, Y7
	VMOVDQU Y7, 128(SP)
	VPSLLD $17, Y2, Y6
	VPSRLD $17, Y6, Y6
	VMOVDQU Y6, 192(SP)
	MOVQ 72(BX), AX
	VPMOVZXWD (AX)(CX*2), Y7
	VPCMPEQD Y7, Y6, Y7
	VPCMPEQD Y8, Y8, Y8
	VPXOR Y8, Y7, Y7
	VPOR 96(SP), Y7, Y7
	VMOVDQU Y7, 96(SP)

rate8:
	// rt = base + perSpeed·speed in Y3
	VMOVUPS 160(SP), Y1
	VMULPS Y1, Y4, Y4
	VADDPS Y4, Y3, Y3

	// Units with a speed blend (pair ≠ 0): gaitPair.blend.
	VPSRLD $16, Y2, Y5
	VPTEST Y5, Y5
	JZ swing8
	VMOVUPS Y3, 224(SP)
	VPXOR Y8, Y8, Y8
	VPCMPEQD Y8, Y5, Y8 // no pair
	VPCMPEQD Y7, Y7, Y7
	VPXOR Y7, Y8, Y7
	VMOVDQU Y7, 288(SP) // pair lanes
	VPCMPEQD Y7, Y7, Y7
	VPADDD Y7, Y5, Y7 // pair − 1
	VPANDN Y7, Y8, Y7 // 0 without a pair
	VPSLLD $5, Y7, Y7
	VMOVDQU Y7, 32(SP)
	MOVQ 112(BX), DI
	ROWAT(32, 0, 0, 4, DI, Y9, X9)
	ROWAT(32, 0, 1, 5, DI, Y10, X10)
	ROWAT(32, 0, 2, 6, DI, Y11, X11)
	ROWAT(32, 0, 3, 7, DI, Y12, X12)
	TRANSPOSE8(Y9, Y10, Y11, Y12, Y13, Y14)
	// Y11 walk | run<<16, Y12 walkSpeed, Y13 perRunDiff, Y9 stride.
	// b = (speed − walkSpeed)·perRunDiff in Y12; Y13: cl is the walk.
	VSUBPS Y12, Y1, Y12
	VMULPS Y13, Y12, Y12
	VPSLLD $16, Y11, Y13
	VPSRLD $16, Y13, Y13
	VPCMPEQD Y13, Y6, Y13
	ROWAT(32, 16, 0, 4, DI, Y2, X2)
	ROWAT(32, 16, 1, 5, DI, Y3, X3)
	ROWAT(32, 16, 2, 6, DI, Y4, X4)
	ROWAT(32, 16, 3, 7, DI, Y7, X7)
	TRANSPOSE8(Y2, Y3, Y4, Y7, Y8, Y10)
	// Y4 strideDiff, Y7 walkPer, Y8 runPer.
	VMULPS Y7, Y1, Y7 // speed·walkPer
	VMULPS Y8, Y1, Y8 // speed·runPer
	VMULPS Y12, Y4, Y4
	VADDPS Y4, Y9, Y4
	VDIVPS Y4, Y1, Y4 // speed / (stride + strideDiff·b)
	VBROADCASTSS selk<>+24(SB), Y9
	VCMPPS $1, Y9, Y12, Y10 // b < gaitSnap
	VBROADCASTSS selk<>+28(SB), Y9
	VCMPPS $1, Y12, Y9, Y11 // 1−gaitSnap < b
	VBLENDVPS Y11, Y8, Y4, Y4
	VBLENDVPS Y10, Y7, Y4, Y4 // the rate
	VBROADCASTSS selk<>+12(SB), Y9
	VBLENDVPS Y11, Y9, Y12, Y12
	VANDNPS Y12, Y10, Y12 // b snapped: 0, 1 or itself
	VSUBPS Y12, Y9, Y7
	VBLENDVPS Y13, Y12, Y7, Y7 // w: b for the walk, 1 − b for the run
	VMOVDQU 288(SP), Y2
	VMOVUPS 224(SP), Y3
	VBLENDVPS Y2, Y4, Y3, Y3 // rt
	// Left, with Blend: a pair unit with 0 < w < 1 (fades.gait).
	MOVQ 104(BX), AX
	TESTQ AX, AX
	JZ swing8
	VXORPS Y10, Y10, Y10
	VCMPPS $1, Y7, Y10, Y10 // 0 < w
	VCMPPS $1, Y9, Y7, Y11 // w < 1
	VANDPS Y11, Y10, Y10
	VANDPS Y2, Y10, Y10
	VPOR 96(SP), Y10, Y10
	VMOVDQU Y10, 96(SP)

swing8:
	// sw in Y6 (−1 without swings); m = 1 where the state is swung and sw ≥ 0.
	MOVQ 64(BX), AX
	TESTQ AX, AX
	JZ noswing8
	VMOVUPS (AX)(CX*4), Y6
	JMP swung8
noswing8:
	VBROADCASTSS selk<>+16(SB), Y6
swung8:
	VMOVDQU 256(SP), Y0
	VPSLLD $29, Y0, Y7
	VPSRAD $31, Y7, Y7 // swung
	VPSRAD $31, Y6, Y8 // sw < 0
	VPANDN Y7, Y8, Y7
	VBROADCASTSS selk<>+12(SB), Y9
	VANDPS Y9, Y7, Y7 // m
	VSUBPS Y7, Y9, Y8 // 1 − m
	// ph = p·(1−m) + sw·m + rt·(1−m)·dt in Y11; the old phase in Y10.
	MOVQ 80(BX), AX
	VMOVUPS (AX)(CX*4), Y10
	VMULPS Y8, Y10, Y11
	VMULPS Y7, Y6, Y12
	VADDPS Y12, Y11, Y11
	VMULPS Y8, Y3, Y3
	VBROADCASTSS 124(BX), Y12
	VMULPS Y12, Y3, Y12
	VADDPS Y12, Y11, Y11
	// settle(ph, true) in Y13 and settle(ph, false) in Y14, as ROWS8; the
	// wrap where the pick wraps and no swing drives the phase (m = 0).
	VCVTTPS2DQ Y11, Y12
	VCVTDQ2PS Y12, Y12
	VCMPPS $1, Y12, Y11, Y13 // q < t
	VANDPS Y9, Y13, Y13
	VSUBPS Y13, Y12, Y12
	VSUBPS Y12, Y11, Y13 // w = q − floor(q)
	VCMPPS $1, Y9, Y13, Y14 // w < 1
	VXORPS Y2, Y2, Y2
	VCMPPS $2, Y13, Y2, Y12 // 0 ≤ w
	VANDPS Y12, Y14, Y14
	VANDPS Y14, Y13, Y13
	VMINPS Y9, Y11, Y14
	VCMPPS $2, Y11, Y2, Y12 // 0 ≤ q
	VANDPS Y12, Y14, Y14
	VPSLLD $30, Y0, Y12
	VPSRAD $31, Y12, Y12 // wrap
	VPCMPEQD Y2, Y7, Y8 // m = 0
	VPAND Y8, Y12, Y12
	VBLENDVPS Y12, Y13, Y14, Y11
	// ph *= keep
	VPSLLD $28, Y0, Y13
	VPSRAD $31, Y13, Y13
	VANDPS Y9, Y13, Y13
	VMULPS Y13, Y11, Y11
	VMOVDQU 96(SP), Y12 // left

	// Stores: the units left keep what they had.
	VBLENDVPS Y12, Y10, Y11, Y11
	VMOVUPS Y11, (AX)(CX*4)
	MOVQ 88(BX), AX
	VMOVUPS (AX)(CX*4), Y13
	VBLENDVPS Y12, Y13, Y3, Y3
	VMOVUPS Y3, (AX)(CX*4)
	MOVQ 96(BX), AX
	VPMOVZXBD (AX)(CX*1), Y13
	VMOVDQU 64(SP), Y14
	VPBLENDVB Y12, Y13, Y14, Y14
	BYTES8(Y14, Y13, X13, X10, (AX)(CX*1))
	MOVQ 104(BX), AX
	TESTQ AX, AX
	JZ seen8
	VMOVUPS (AX)(CX*4), Y13
	VANDPS Y12, Y13, Y13 // 0, or what a unit left had
	VMOVUPS Y13, (AX)(CX*4)
seen8:
	VMOVDQU 128(SP), Y13
	VPANDN Y13, Y12, Y13
	VPOR Y13, Y15, Y15
	VMOVMSKPS Y12, AX
	MOVB AL, (R8)
	INCQ R8
	ADDQ $8, CX
	DECQ DX
	JNZ group8

	VEXTRACTI128 $1, Y15, X0
	VPOR X0, X15, X0
	VPSHUFD $0x4e, X0, X1
	VPOR X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPOR X1, X0, X0
	VMOVD X0, AX
	MOVL AX, ret+32(FP)
	VZEROUPPER
	RET
