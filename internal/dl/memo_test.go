package dl

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMemo(t *testing.T) {
	var m Memo[int]
	calls := 0
	load := func(v int, err error) func() (int, error) {
		return func() (int, error) { calls++; return v, err }
	}
	assert.False(t, m.Loaded(""))
	v, err := m.Get("", load(1, nil))
	assert.NoError(t, err)
	assert.Equal(t, 1, v)
	v, _ = m.Get("", load(2, nil))
	assert.Equal(t, 1, v, "the first outcome is kept")
	assert.True(t, m.Loaded(""))

	boom := errors.New("boom")
	_, err = m.Get("/x", load(0, boom))
	assert.Equal(t, boom, err)
	_, err = m.Get("/x", load(3, nil))
	assert.Equal(t, boom, err, "a failure is kept too")
	assert.False(t, m.Loaded("/x"))
	assert.Equal(t, 2, calls)
}
