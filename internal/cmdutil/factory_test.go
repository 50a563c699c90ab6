package cmdutil

import (
	"errors"
	"slices"
	"testing"
)

func TestFactoryClose(t *testing.T) {
	f := &Factory{}
	var order []int
	boom := errors.New("boom")
	f.AddCloser(func() error { order = append(order, 1); return nil })
	f.AddCloser(func() error { order = append(order, 2); return boom })
	if err := f.Close(); !errors.Is(err, boom) {
		t.Fatalf("Close = %v, want boom", err)
	}
	if !slices.Equal(order, []int{2, 1}) {
		t.Fatalf("closers ran in order %v, want last added first", order)
	}
	if err := f.Close(); err != nil || len(order) != 2 {
		t.Fatalf("a second Close ran closers again: %v %v", err, order)
	}
}
