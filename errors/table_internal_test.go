package errors

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewCodeTable(t *testing.T) {
	tab := NewCodeTable("x", "xResult", "X_UNKNOWN_", []Code{
		{Name: "X_B", Value: 7, Category: Launch, Msg: "b", Hint: "hb"},
		{Name: "X_OK", Value: 1, Category: None, Msg: "ok", Hint: "nothing"},
		{Name: "X_A", Value: -3, Category: OutOfMemory, Retryable: true, Msg: "a", Hint: "ha"},
	})
	names := []string{}
	for _, c := range tab.Codes() {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"X_A", "X_OK", "X_B"}, names, "sorted by value")

	c, ok := tab.Lookup(-3)
	require.True(t, ok)
	assert.Equal(t, "X_A", c.Name)
	_, ok = tab.Lookup(0)
	assert.False(t, ok)

	// Success is whatever code has Category None, not necessarily 0.
	assert.NoError(t, tab.Err(1, "op"))
	err := tab.Err(0, "op")
	require.Error(t, err)
	assert.Equal(t, "X_UNKNOWN_0", err.(*Error).Name)
	assert.Equal(t, "unknown xResult 0", err.(*Error).Msg)
	assert.Equal(t, "x: op: b (X_B): hb", tab.Err(7, "op").Error())
}

func TestNewCodeTablePanics(t *testing.T) {
	tests := []struct {
		name  string
		codes []Code
	}{
		{"duplicate value", []Code{{Name: "A", Value: 1}, {Name: "B", Value: 1}}},
		{"duplicate name", []Code{{Name: "A", Value: 1}, {Name: "A", Value: 2}}},
		{"empty name", []Code{{Name: "", Value: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Panics(t, func() { NewCodeTable("x", "xResult", "X_", tt.codes) })
		})
	}
}
