package accel

// For the tests of package accel_test.

// TimePhases is timePhases (the stage timings of BenchmarkBuildPhases).
var TimePhases = timePhases
