//go:build !unix

package accel

import "time"

// processCPU cannot tell here (see the unix version).
func processCPU() (user, sys time.Duration, ok bool) { return 0, 0, false }
