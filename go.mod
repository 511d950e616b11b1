module github.com/raypipe/raypipe

go 1.26
