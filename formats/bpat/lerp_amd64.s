#include "textflag.h"

// func lerp8(dst, a, b *float32, n int, t float32)
TEXT ·lerp8(SB), NOSPLIT, $0-36
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	MOVSS t+32(FP), X0
	SHUFPS $0, X0, X0
	SHRQ $3, CX
	JZ done
loop:
	MOVUPS (SI), X1
	MOVUPS 16(SI), X3
	MOVUPS (DX), X2
	MOVUPS 16(DX), X4
	SUBPS X1, X2
	SUBPS X3, X4
	MULPS X0, X2
	MULPS X0, X4
	ADDPS X1, X2
	ADDPS X3, X4
	MOVUPS X2, (DI)
	MOVUPS X4, 16(DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ loop
done:
	RET
