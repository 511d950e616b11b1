//go:build unix

package accel

import (
	"syscall"
	"time"
)

// processCPU returns the user and kernel time the process's threads have
// taken so far (getrusage), and whether it could tell.
func processCPU() (user, sys time.Duration, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0, false
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), true
}
