//go:build race

package accel

// raceDetector: this test binary runs with the race detector (see
// raceRays).
const raceDetector = true
