package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestCollectLate: collection is off until the first one (the heap at 64 MiB,
// here forced), which restores the pacing the process had.
func TestCollectLate(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: collectLate leaves them alone")
	}
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	restore := collectLate()
	defer restore()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Fatalf("GOGC %d after collectLate, want off", p)
	}
	if l := debug.SetMemoryLimit(-1); l != lateCollectionHeap {
		t.Fatalf("memory limit %d, want %d", l, lateCollectionHeap)
	}
	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		if p == 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GOGC still %d after a collection, want 100 restored", p)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if l := debug.SetMemoryLimit(-1); l == lateCollectionHeap {
		t.Errorf("memory limit still %d after a collection", l)
	}
}

// TestPaceGC: a bake of several models collects at three times the live
// data, and the pacing before it is restored after.
func TestPaceGC(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC set: paceGC leaves it alone")
	}
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	restore := paceGC(3)
	if p := debug.SetGCPercent(-1); p != 200 {
		t.Errorf("GOGC %d while baking 3 models, want 200", p)
	}
	debug.SetGCPercent(200)
	restore()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GOGC %d after, want 100 restored", p)
	}
}
