package cpu_test

import (
	"testing"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/cpu"
)

func TestConformance(t *testing.T) { backendtest.Run(t, cpu.Driver{}) }
