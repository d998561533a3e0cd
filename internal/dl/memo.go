package dl

import "sync"

// Memo remembers the outcome of loading a library, once per value of the
// environment variable that overrides its search: a test that changes the
// variable loads again, and every other caller shares the first outcome,
// success or failure. The zero Memo is ready to use; loads through one Memo
// run one at a time.
type Memo[T any] struct {
	mu    sync.Mutex
	byKey map[string]memoResult[T]
}

type memoResult[T any] struct {
	v   T
	err error
}

// Get returns the outcome for key (the override variable's value), calling
// load only the first time.
func (m *Memo[T]) Get(key string, load func() (T, error)) (T, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.byKey[key]; ok {
		return r.v, r.err
	}
	v, err := load()
	if m.byKey == nil {
		m.byKey = map[string]memoResult[T]{}
	}
	m.byKey[key] = memoResult[T]{v, err}
	return v, err
}

// Loaded reports whether a load for key has run and succeeded.
func (m *Memo[T]) Loaded(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.byKey[key]
	return ok && r.err == nil
}
