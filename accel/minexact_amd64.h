// MINEXACT sets a to Go's min(a, b) lane by lane for operands that are
// not NaN: MINPS both ways, ORed (MINPS alone gives its second operand
// for two zeros; see refBounds in bounds_amd64.s). It clobbers t.
#define MINEXACT(b, a, t) \
	MOVAPS b, t \
	MINPS  a, t \
	MINPS  b, a \
	ORPS   t, a
