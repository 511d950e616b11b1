// The inner-node loop of nodeWalk (SSE, nodewalk_amd64.s) and nodeWalkAVX2
// (fused_amd64.s), NODEWALKLOOP, and its push of a node's hit children,
// PUSHHITSBY: one source for both encodings, the same nodes visited and
// entries pushed (TestNodeWalkMatchesGo).

// PUSHHITSBY is the node loops' push of a node's hit children, with the
// float instructions given: MOVSS, UCOMISS and MOVAPS in nodeWalk (SSE),
// their VEX forms in nodeWalkAVX2, whose 256-bit node test would make
// legacy SSE instructions cost a transition on some processors. It uses
// PREFETCHREF (prefetch_amd64.h).
//
// It does what walkFiniteOn does with a nonzero hit mask in AX of
// the node at SI (entry distances at 0(SP)), pushing at DI (&stack[sp]):
// one hit is cur; of two, the nearer is cur (the first on a tie) and the
// other is pushed; more are pushed as pushSorted pushes them and cur is
// popped off the top. The pushed entries left on the stack are prefetched
// as prefetchChild would (wide and leaves its arguments, memory operands
// or registers other than AX, CX, DX, R11, R12). It leaves cur's node in
// R10 and near distance in X0, one past the top entry in R12, and goes on
// at done. It clobbers AX, CX, DX, R8-R12, X1 and X2.
#define PUSHHITSBY(wide, leaves, done, movss, ucomiss, movaps) \
	MOVQ  DI, R12 \
	BSFQ  AX, CX \
	LEAQ  -1(AX), R8 \
	ANDQ  AX, R8 \
	JNZ   several \
	MOVL  192(SI)(CX*4), R10 \
	movss (SP)(CX*4), X0 \
	JMP   done \
several: \
	BSFQ  R8, R9 \
	LEAQ  -1(R8), R11 \
	TESTQ R8, R11 \
	JNZ   sorted \
	MOVL    192(SI)(CX*4), R10 \
	movss   (SP)(CX*4), X0 \
	MOVL    192(SI)(R9*4), R11 \
	movss   (SP)(R9*4), X1 \
	ucomiss X1, X0 \
	JLS     pushc \
	XCHGL   R10, R11 \
	movaps  X0, X2 \
	movaps  X1, X0 \
	movaps  X2, X1 \
pushc: \
	MOVL  R11, 0(DI) \
	movss X1, 4(DI) \
	ADDQ  $8, R12 \
	JMP   prefetch \
sorted: \
	BSFQ    AX, CX \
	MOVL    192(SI)(CX*4), R9 \
	MOVL    (SP)(CX*4), R10 \
	movss   (SP)(CX*4), X0 \
	SHLQ    $32, R10 \
	ORQ     R9, R10 \
	MOVQ    R12, R11 \
insert: \
	CMPQ    R11, DI \
	JLS     put \
	ucomiss -4(R11), X0 \
	JCS     put \
	MOVQ    -8(R11), R9 \
	MOVQ    R9, 0(R11) \
	SUBQ    $8, R11 \
	JMP     insert \
put: \
	MOVQ R10, 0(R11) \
	ADDQ $8, R12 \
	LEAQ -1(AX), CX \
	ANDQ CX, AX \
	JNZ  sorted \
	SUBQ  $8, R12 \
	MOVL  0(R12), R10 \
	movss 4(R12), X0 \
prefetch: \
	MOVQ DI, R11 \
pfnext: \
	CMPQ R11, R12 \
	JCC  done \
	MOVL 0(R11), AX \
	ADDQ $8, R11 \
	PREFETCHREF(wide, leaves, pfnext) \
	JMP  pfnext

// NODEWALKLOOP is nodeWalk's loop and exits, after the TEXT has set the
// node test's constants up: test tests the node at SI (the slabRay at
// q+16(FP)), leaving the hit mask in AX and the entry distances at 0(SP);
// movss, ucomiss and movaps are the float instructions (SSE, or their VEX
// forms after a 256-bit test); leave runs before each return (NOP, or
// VZEROUPPER). The loop keeps cur's node in R10 and near distance in X0,
// &stack[sp] in BX; the frame holds the entry distances (0(SP)) and
// &stack[limit] (32(SP)).
#define NODEWALKLOOP(test, movss, ucomiss, movaps, leave) \
	MOVQ  stack+40(FP), DX \
	MOVQ  sp+64(FP), AX \
	LEAQ  (DX)(AX*8), BX \
	MOVL  cur_node+56(FP), R10 \
	movss cur_near+60(FP), X0 \
	MOVQ  limit+48(FP), AX \
	TESTQ AX, AX \
	JS    out /* no room for any node */ \
	LEAQ  (DX)(AX*8), AX \
	MOVQ  AX, 32(SP) \
loop: \
	/* cur (R10, X0) is an inner node that passed the tMax check: test */ \
	/* it here unless Go must (an index out of range, a stack that */ \
	/* could overflow). */ \
	CMPQ R10, nwide+8(FP) \
	JCC  out \
	CMPQ BX, 32(SP) \
	JHI  out \
	MOVQ R10, SI \
	SHLQ $8, SI \
	ADDQ wide+0(FP), SI \
	PREFETCHT0 192(SI) /* the references, read after the test */ \
	test \
	MOVQ  BX, DI \
	TESTQ AX, AX \
	JZ    pop \
	PUSHHITSBY(wide+0(FP), leaves+32(FP), done, movss, ucomiss, movaps) \
done: \
	MOVQ    R12, BX \
	ucomiss X0, X14 /* cur.near <= tMax */ \
	JCS     pop \
	TESTL   R10, R10 \
	JS      out /* a leaf: back to Go */ \
	JMP     loop \
pop: \
	CMPQ    BX, stack+40(FP) \
	JLS     empty \
	SUBQ    $8, BX \
	MOVL    0(BX), R10 \
	movss   4(BX), X0 \
	ucomiss X0, X14 \
	JCS     pop \
	TESTL   R10, R10 \
	JS      out \
	JMP     loop \
out: \
	leave \
	MOVL  R10, next_node+72(FP) \
	movss X0, next_near+76(FP) \
	SUBQ  stack+40(FP), BX \
	SHRQ  $3, BX \
	MOVQ  BX, newSp+80(FP) \
	MOVB  $1, ok+88(FP) \
	RET \
empty: \
	leave \
	MOVL $0, next_node+72(FP) \
	MOVL $0, next_near+76(FP) \
	MOVQ $0, newSp+80(FP) \
	MOVB $0, ok+88(FP) \
	RET
