//go:build !purego

package accel

import "unsafe"

// nodeWalk runs walkFiniteOn's scalar loop (the slabAsm one) from cur, an
// inner node that passed the loop's cur.near <= tMax check, over its inner
// nodes: each is tested with slabTest's instructions and its hit children
// are taken as the loop takes them (one: cur; two: the nearer is cur, the
// first in slot order on a tie, and the other is pushed; more: pushed as
// pushSorted pushes them, and cur popped off the top), each child pushed
// and left on the stack prefetched as prefetchChild prefetches it (wide
// and leaves are its arguments), and the stack is popped as the loop pops
// it. It returns at the first cur that passes the check and is a leaf (ok
// true), or is an inner node the loop must take itself (ok true): one whose
// index is not below nwide (the length of the wideNode slice at wide), or
// one met with sp above limit, where the loop stops before the stack could
// overflow. ok false says the stack ran empty: the walk is over. Every
// node is visited and every entry pushed as by the Go loop, bit for bit
// (TestNodeWalkMatchesGo, TestNodeWalkTrees).
//
// The loop spent more time around its calls to slabTest and prefetchRef
// than in them (after each call Go reloads its live values from the
// stack); this keeps the ray in registers from one node to the next, so
// that Go only sees leaves.
//
//go:noescape
func nodeWalk(wide unsafe.Pointer, nwide int, q *slabRay, tMin, tMax float32, leaves unsafe.Pointer, stack *stackEntry, limit int, cur stackEntry, sp int) (next stackEntry, newSp int, ok bool)

// nodeWalkAVX2 is nodeWalk with the fused walks' AVX2 node test, the
// eight children at once: the same nodes visited and entries pushed
// (TestNodeWalkMatchesGo). The Traversal's descend takes it where the AVX2
// walks run (fusedAVX2).
//
//go:noescape
func nodeWalkAVX2(wide unsafe.Pointer, nwide int, q *slabRay, tMin, tMax float32, leaves unsafe.Pointer, stack *stackEntry, limit int, cur stackEntry, sp int) (next stackEntry, newSp int, ok bool)

// The assembly (nodeWalk) hard-codes the layout: these fail to compile if
// it changes.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(wideNode{})-256]
	_ = [1]struct{}{}[unsafe.Offsetof(wideNode{}.ref)-192]
	_ = [1]struct{}{}[unsafe.Sizeof(stackEntry{})-8]
	_ = [1]struct{}{}[unsafe.Offsetof(stackEntry{}.near)-4]
	_ = [1]struct{}{}[unsafe.Offsetof(slabRay{}.fx)-96]
	_ = [1]struct{}{}[unsafe.Offsetof(slabRay{}.nxo)-192]
	_ = [1]struct{}{}[unsafe.Offsetof(slabRay{}.fzo)-232]
	_ = [1]struct{}{}[wideWidth-8]
	_ = [1]struct{}{}[leafBit-1<<31]
)

// occludeWalk is nodeWalk for occludesFiniteOn's scalar loop: from cur,
// an inner node, it tests inner nodes with slabTestSpans' instructions and
// takes their hit children as that loop does (reachChild's as cur, the
// others pushed so that they pop in slot order, each prefetched as
// prefetchChild prefetches it), popping the stack when none is hit. It returns at the
// first cur that is a leaf or an inner node the loop must take itself
// (ok true: an index not below nwide, or sp above limit), or with ok
// false when the stack ran empty (TestNodeWalkMatchesGo, TestNodeWalkTrees,
// TestNodeWalkSameHits).
//
//go:noescape
func occludeWalk(wide unsafe.Pointer, nwide int, q *slabRay, tMin, tMax float32, leaves unsafe.Pointer, stack *uint32, limit int, cur uint32, sp int) (next uint32, newSp int, ok bool)
