//go:build amd64 && !amd64.v3 && !purego

#include "textflag.h"

// The constants of modelSpaceAVX.
DATA msOne<>+0(SB)/8, $1.0
GLOBL msOne<>(SB), RODATA|NOPTR, $8
DATA msTwo<>+0(SB)/8, $2.0
GLOBL msTwo<>(SB), RODATA|NOPTR, $8
DATA msEps<>+0(SB)/8, $1e-9
GLOBL msEps<>(SB), RODATA|NOPTR, $8
DATA msNegEps<>+0(SB)/8, $-1e-9
GLOBL msNegEps<>(SB), RODATA|NOPTR, $8
// -0 in every lane: adding it changes no float, -0 included.
DATA msNegZero<>+0(SB)/8, $0x8000000000000000
DATA msNegZero<>+8(SB)/8, $0x8000000000000000
DATA msNegZero<>+16(SB)/8, $0x8000000000000000
DATA msNegZero<>+24(SB)/8, $0x8000000000000000
GLOBL msNegZero<>(SB), RODATA|NOPTR, $32
// An affine matrix's bottom row: 0 0 0 1.
DATA msBottom<>+0(SB)/8, $0.0
DATA msBottom<>+8(SB)/8, $0.0
DATA msBottom<>+16(SB)/8, $0.0
DATA msBottom<>+24(SB)/8, $1.0
GLOBL msBottom<>(SB), RODATA|NOPTR, $32

// func modelSpaceAVX(parents *int, local *Transform, out *Mat4, n int) (bad int)
//
// modelSpaceGo's loop (skeleton.go) with the same float64 operations in the same
// order, each rounded alone (no fused multiply-add): the local matrix in scalar
// registers as childMatrix builds it, then each row of parent·local as four lanes,
// ((p0·L0 + p1·L1) + p2·L2) + (−0, −0, −0, p3).
//
// Transform is 80 bytes: Translation at 0, Rotation (x y z w) at 24, Scale at 56.
// Mat4 is 128 bytes, row-major.
TEXT ·modelSpaceAVX(SB), NOSPLIT, $0-40
	MOVQ parents+0(FP), BX
	MOVQ local+8(FP), SI
	MOVQ out+16(FP), R8
	MOVQ n+24(FP), DX
	XORQ CX, CX
	MOVQ R8, DI
	VMOVSD msOne<>(SB), X15

loop:
	CMPQ CX, DX
	JGE  done
	MOVQ (BX)(CX*8), AX
	CMPQ AX, CX
	JGE  bad

	// s = rotationScale(x*x + y*y + z*z + w*w)
	VMOVSD 24(SI), X0
	VMOVSD 32(SI), X1
	VMOVSD 40(SI), X2
	VMOVSD 48(SI), X3
	VMULSD X0, X0, X4
	VMULSD X1, X1, X5
	VADDSD X5, X4, X4
	VMULSD X2, X2, X5
	VADDSD X5, X4, X4
	VMULSD X3, X3, X5
	VADDSD X5, X4, X4 // n
	VSUBSD X15, X4, X5 // d = n - 1
	VUCOMISD msNegEps<>(SB), X5
	JBE  slow // d <= -1e-9, or NaN
	VMOVSD msEps<>(SB), X6
	VUCOMISD X5, X6
	JBE  slow // 1e-9 <= d
	VSUBSD X5, X15, X4 // 1 - d
	VMULSD msTwo<>(SB), X4, X4 // s = 2 * (1 - d)
	JMP  scaled

slow:
	VXORPD X6, X6, X6
	VUCOMISD X6, X4
	JBE  zero // n <= 0, or NaN
	VMOVSD msTwo<>(SB), X6
	VDIVSD X4, X6, X4 // s = 2 / n
	JMP  scaled

zero:
	VXORPD X4, X4, X4

scaled:
	VMULSD X4, X0, X5 // xs
	VMULSD X4, X1, X6 // ys
	VMULSD X4, X2, X7 // zs
	VMULSD X5, X0, X9 // xx
	VMULSD X6, X1, X10 // yy
	VMULSD X7, X2, X11 // zz
	VMULSD X6, X0, X12 // xy
	VMULSD X7, X0, X13 // xz
	VMULSD X7, X1, X14 // yz
	VMULSD X5, X3, X5 // wx
	VMULSD X6, X3, X6 // wy
	VMULSD X7, X3, X7 // wz

	// Row 0 before scaling: 1-(yy+zz), xy-wz, xz+wy, tx.
	VADDSD X11, X10, X0
	VSUBSD X0, X15, X0
	VSUBSD X7, X12, X1
	VADDSD X6, X13, X2
	VMOVSD 0(SI), X3
	VUNPCKLPD X1, X0, X0
	VUNPCKLPD X3, X2, X2
	VINSERTF128 $1, X2, Y0, Y0

	// Row 1: xy+wz, 1-(xx+zz), yz-wx, ty.
	VADDSD X7, X12, X1
	VADDSD X11, X9, X2
	VSUBSD X2, X15, X2
	VSUBSD X5, X14, X3
	VMOVSD 8(SI), X4
	VUNPCKLPD X2, X1, X1
	VUNPCKLPD X4, X3, X3
	VINSERTF128 $1, X3, Y1, Y1

	// Row 2: xz-wy, yz+wx, 1-(xx+yy), tz.
	VSUBSD X6, X13, X2
	VADDSD X5, X14, X3
	VADDSD X10, X9, X4
	VSUBSD X4, X15, X4
	VMOVSD 16(SI), X5
	VUNPCKLPD X3, X2, X2
	VUNPCKLPD X5, X4, X4
	VINSERTF128 $1, X4, Y2, Y2

	// Scale the columns: (sx, sy, sz, 1); the translation times 1 is itself.
	VMOVUPD 56(SI), X8
	VMOVSD 72(SI), X9
	VUNPCKLPD X15, X9, X9
	VINSERTF128 $1, X9, Y8, Y8
	VMULPD Y8, Y0, Y0 // L0: l0 l1 l2 l3
	VMULPD Y8, Y1, Y1 // L1: l4 l5 l6 l7
	VMULPD Y8, Y2, Y2 // L2: l8 l9 l10 l11

	TESTQ AX, AX
	JGE   child
	// A root: its local matrix.
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	JMP     bottom

child:
	SHLQ $7, AX
	LEAQ (R8)(AX*1), R9 // the parent's matrix
	VMOVUPD msNegZero<>(SB), Y13

	VBROADCASTSD 0(R9), Y3
	VMULPD       Y0, Y3, Y3
	VBROADCASTSD 8(R9), Y4
	VMULPD       Y1, Y4, Y4
	VADDPD       Y4, Y3, Y3
	VBROADCASTSD 16(R9), Y4
	VMULPD       Y2, Y4, Y4
	VADDPD       Y4, Y3, Y3
	VBLENDPD     $8, 0(R9), Y13, Y4 // -0 -0 -0 p3
	VADDPD       Y4, Y3, Y3
	VMOVUPD      Y3, 0(DI)

	VBROADCASTSD 32(R9), Y3
	VMULPD       Y0, Y3, Y3
	VBROADCASTSD 40(R9), Y4
	VMULPD       Y1, Y4, Y4
	VADDPD       Y4, Y3, Y3
	VBROADCASTSD 48(R9), Y4
	VMULPD       Y2, Y4, Y4
	VADDPD       Y4, Y3, Y3
	VBLENDPD     $8, 32(R9), Y13, Y4
	VADDPD       Y4, Y3, Y3
	VMOVUPD      Y3, 32(DI)

	VBROADCASTSD 64(R9), Y3
	VMULPD       Y0, Y3, Y3
	VBROADCASTSD 72(R9), Y4
	VMULPD       Y1, Y4, Y4
	VADDPD       Y4, Y3, Y3
	VBROADCASTSD 80(R9), Y4
	VMULPD       Y2, Y4, Y4
	VADDPD       Y4, Y3, Y3
	VBLENDPD     $8, 64(R9), Y13, Y4
	VADDPD       Y4, Y3, Y3
	VMOVUPD      Y3, 64(DI)

bottom:
	VMOVUPD msBottom<>(SB), Y3
	VMOVUPD Y3, 96(DI)
	INCQ    CX
	ADDQ    $80, SI
	SUBQ    $-128, DI
	JMP     loop

bad:
	VZEROUPPER
	MOVQ CX, bad+32(FP)
	RET

done:
	VZEROUPPER
	MOVQ $-1, bad+32(FP)
	RET

// func hasAVX() bool
TEXT ·hasAVX(SB), NOSPLIT, $0-1
	MOVL  $1, AX
	XORL  CX, CX
	CPUID
	ANDL  $0x18000000, CX // OSXSAVE (bit 27) and AVX (bit 28)
	CMPL  CX, $0x18000000
	JNE   no
	XORL  CX, CX
	XGETBV                // XCR0: the OS saves SSE (bit 1) and AVX (bit 2) state
	ANDL  $6, AX
	CMPL  AX, $6
	JNE   no
	MOVB  $1, ret+0(FP)
	RET

no:
	MOVB $0, ret+0(FP)
	RET

DATA msExpMask<>+0(SB)/4, $0x7f800000
GLOBL msExpMask<>(SB), RODATA|NOPTR, $4

// func putPaletteAVX(dst *float32, global *Mat4, bones *int, n int) (nonFinite bool)
//
// A float32 is not finite exactly when its exponent bits are all ones: each lane
// masked to its exponent and compared with the mask, the results or-ed together.
TEXT ·putPaletteAVX(SB), NOSPLIT, $0-33
	MOVQ         dst+0(FP), DI
	MOVQ         global+8(FP), SI
	MOVQ         bones+16(FP), BX
	MOVQ         n+24(FP), CX
	VBROADCASTSS msExpMask<>(SB), X8
	VPXOR        X9, X9, X9

putLoop:
	MOVQ       (BX), AX
	SHLQ       $7, AX
	LEAQ       (SI)(AX*1), DX // global[bones[i]]
	VCVTPD2PSY 0(DX), X0
	VCVTPD2PSY 32(DX), X1
	VCVTPD2PSY 64(DX), X2
	VCVTPD2PSY 96(DX), X3
	VMOVUPS    X0, 0(DI)
	VMOVUPS    X1, 16(DI)
	VMOVUPS    X2, 32(DI)
	VMOVUPS    X3, 48(DI)
	VANDPS     X8, X0, X0
	VANDPS     X8, X1, X1
	VANDPS     X8, X2, X2
	VANDPS     X8, X3, X3
	VPCMPEQD   X8, X0, X0
	VPCMPEQD   X8, X1, X1
	VPCMPEQD   X8, X2, X2
	VPCMPEQD   X8, X3, X3
	VPOR       X0, X1, X1
	VPOR       X2, X3, X3
	VPOR       X1, X9, X9
	VPOR       X3, X9, X9
	ADDQ       $8, BX
	ADDQ       $64, DI
	DECQ       CX
	JNZ        putLoop

	VPTEST     X9, X9
	SETNE      nonFinite+32(FP)
	VZEROUPPER
	RET
