package accel

// nodeWalkAsm says whether walkFiniteOn takes its inner nodes in nodeWalk.
// It is slabAsm; tests turn it off to compare with the Go loop.
var nodeWalkAsm = slabAsm
