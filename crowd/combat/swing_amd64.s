//go:build amd64 && !amd64.v3 && !purego

#include "textflag.h"

// The lanes' numbers, to tell the attackers before the first one left.
DATA swingIota<>+0(SB)/4, $0
DATA swingIota<>+4(SB)/4, $1
DATA swingIota<>+8(SB)/4, $2
DATA swingIota<>+12(SB)/4, $3
DATA swingIota<>+16(SB)/4, $4
DATA swingIota<>+20(SB)/4, $5
DATA swingIota<>+24(SB)/4, $6
DATA swingIota<>+28(SB)/4, $7
GLOBL swingIota<>(SB), RODATA|NOPTR, $32

// func swing8(a *swingArgs, start, end int) int
//
// Melee.stepRange eight attackers at a time: the cooldowns run down (a
// conditional move), and each swing's timeline advanced and its attack phase
// worked out as AttackPhase does, its phase found by counting the starts passed
// and its row of swingTable picked by a permute. An attacker the Go loop would
// do more for is left (see swing8 in swing_amd64.go): the group is stored only
// up to it. Each operation is the Go loop's, on lanes, in its order.
//
// Y15 dt, Y14 0, Y13 1.0, Y12 SwingDuration; per group Y0 the old waits, Y1
// the new, Y2 the old times, Y3 the attackers not swinging (t < 0), Y4 those
// left, Y7 those with a strike pending, Y9 the new times, Y10 the phases.
TEXT ·swing8(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), BX
	MOVQ start+8(FP), CX
	MOVQ end+16(FP), DX
	MOVQ 72(BX), DI
	VBROADCASTSS 80(BX), Y15
	VXORPS Y14, Y14, Y14
	VPCMPEQD Y13, Y13, Y13
	VPSRLD $25, Y13, Y13
	VPSLLD $23, Y13, Y13 // 0x3f800000: 1.0
	VBROADCASTSS 28(DI), Y12

group:
	LEAQ 8(CX), AX
	CMPQ AX, DX
	JGT done
	// if wait > 0 { wait -= dt }
	MOVQ 0(BX), SI
	VMOVUPS (SI)(CX*4), Y0
	VCMPPS $1, Y0, Y14, Y1 // 0 < wait
	VSUBPS Y15, Y0, Y2
	VBLENDVPS Y1, Y2, Y0, Y1
	MOVQ 8(BX), SI
	VMOVUPS (SI)(CX*4), Y2
	VCMPPS $1, Y14, Y2, Y3 // t < 0: no swing
	VMOVMSKPS Y3, AX
	CMPL AX, $0xff
	JNE swinging
	MOVQ 0(BX), SI
	VMOVUPS Y1, (SI)(CX*4)
	ADDQ $8, CX
	JMP group

swinging:
	// Left: a time that is NaN, a dead attacker, a retarget.
	VCMPPS $3, Y2, Y2, Y4 // t unordered
	MOVQ 64(BX), SI
	VMOVUPS (SI)(CX*4), Y5
	VCMPPS $5, Y5, Y14, Y5 // !(0 < hp): !w.Alive
	VORPS Y5, Y4, Y4
	MOVQ 48(BX), SI
	VMOVDQU (SI)(CX*4), Y6 // strike
	VPCMPEQD Y8, Y8, Y8
	VPCMPGTD Y8, Y6, Y7 // strike > −1: pending
	MOVQ 56(BX), SI
	VPCMPEQD (SI)(CX*4), Y6, Y8 // target == strike
	VPANDN Y7, Y8, Y8
	VPOR Y8, Y4, Y4
	// t += dt·tempo; left where it leaves [0, SwingDuration).
	MOVQ 24(BX), SI
	VMULPS (SI)(CX*4), Y15, Y9
	VADDPS Y9, Y2, Y9
	VCMPPS $6, Y9, Y14, Y10 // !(0 <= t)
	VCMPPS $5, Y12, Y9, Y11 // !(t < SwingDuration)
	VORPS Y11, Y10, Y10
	VORPS Y10, Y4, Y4
	// Timeline: k = Advance + the starts of WindUp..Reposition passed.
	VPCMPEQD Y5, Y5, Y5
	VPSRLD $31, Y5, Y5
	VBROADCASTSS 8(DI), Y6
	VCMPPS $2, Y9, Y6, Y6
	VPSUBD Y6, Y5, Y5
	VBROADCASTSS 12(DI), Y6
	VCMPPS $2, Y9, Y6, Y6
	VPSUBD Y6, Y5, Y5
	VBROADCASTSS 16(DI), Y6
	VCMPPS $2, Y9, Y6, Y6
	VPSUBD Y6, Y5, Y5
	VBROADCASTSS 20(DI), Y6
	VCMPPS $2, Y9, Y6, Y6
	VPSUBD Y6, Y5, Y5
	VBROADCASTSS 24(DI), Y6
	VCMPPS $2, Y9, Y6, Y6
	VPSUBD Y6, Y5, Y5
	// u = min((t − start)/dur, 1)
	VPERMPS 0(DI), Y5, Y6
	VSUBPS Y6, Y9, Y6
	VPERMPS 32(DI), Y5, Y8
	VDIVPS Y8, Y6, Y6
	VMINPS Y13, Y6, Y6
	// Ease: u·u·(a − b·u), and Strike's 1 − (1−u)·(1−u).
	VMULPS Y6, Y6, Y8
	VPERMPS 160(DI), Y5, Y10
	VMULPS Y6, Y10, Y10
	VPERMPS 128(DI), Y5, Y11
	VSUBPS Y10, Y11, Y11
	VMULPS Y11, Y8, Y8
	VSUBPS Y6, Y13, Y10
	VMULPS Y10, Y10, Y10
	VSUBPS Y10, Y13, Y10
	VPCMPEQD Y11, Y11, Y11
	VPSRLD $30, Y11, Y11 // 3: Strike
	VPCMPEQD Y11, Y5, Y11
	VBLENDVPS Y11, Y10, Y8, Y8
	// ap = lo + span·ease in Y10
	VPERMPS 96(DI), Y5, Y10
	VMULPS Y8, Y10, Y10
	VPERMPS 64(DI), Y5, Y11
	VADDPS Y10, Y11, Y10
	// Left: a release or a contact crossed.
	MOVQ 32(BX), SI
	VMOVUPS (SI)(CX*4), Y6
	VCMPPS $2, Y6, Y14, Y8 // 0 <= release
	VCMPPS $2, Y10, Y6, Y11 // release <= ap
	VANDPS Y11, Y8, Y8
	VORPS Y8, Y4, Y4
	MOVQ 40(BX), SI
	VMOVUPS (SI)(CX*4), Y6
	VCMPPS $2, Y10, Y6, Y8 // contact <= ap
	VANDPS Y7, Y8, Y8
	VORPS Y8, Y4, Y4
	VANDNPS Y4, Y3, Y4 // only swinging attackers are left
	VMOVMSKPS Y4, AX
	TESTL AX, AX
	JNZ stop
	// Stores: the times and phases of the attackers not swinging stay.
	MOVQ 0(BX), SI
	VMOVUPS Y1, (SI)(CX*4)
	MOVQ 8(BX), SI
	VBLENDVPS Y3, Y2, Y9, Y9
	VMOVUPS Y9, (SI)(CX*4)
	MOVQ 16(BX), SI
	VMOVUPS (SI)(CX*4), Y6
	VBLENDVPS Y3, Y6, Y10, Y10
	VMOVUPS Y10, (SI)(CX*4)
	ADDQ $8, CX
	JMP group

stop:
	// The lanes before the first left are stored; the rest keep what they had.
	BSFL AX, AX
	VMOVD AX, X6
	VPBROADCASTD X6, Y6
	VMOVDQU swingIota<>(SB), Y8
	VPCMPGTD Y8, Y6, Y6 // lane < first left
	VBLENDVPS Y6, Y1, Y0, Y0
	MOVQ 0(BX), SI
	VMOVUPS Y0, (SI)(CX*4)
	VANDNPS Y6, Y3, Y8 // swinging, before the first left
	VBLENDVPS Y8, Y9, Y2, Y2
	MOVQ 8(BX), SI
	VMOVUPS Y2, (SI)(CX*4)
	MOVQ 16(BX), SI
	VMOVUPS (SI)(CX*4), Y6
	VBLENDVPS Y8, Y10, Y6, Y6
	VMOVUPS Y6, (SI)(CX*4)
	ADDQ AX, CX

done:
	MOVQ CX, ret+24(FP)
	VZEROUPPER
	RET
