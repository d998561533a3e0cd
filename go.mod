module github.com/anygpu/gpu

go 1.26

require github.com/stretchr/testify v1.11.1
