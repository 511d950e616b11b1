module github.com/raypipe/raypipe

go 1.26

require github.com/qmuntal/gltf v0.29.0
