module github.com/raypipe/raypipe

go 1.26.0

require github.com/qmuntal/gltf v0.29.0

require golang.org/x/sys v0.49.0 // indirect
