package atomicfile

import (
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

func newBool(v bool) *atomic.Bool {
	var b atomic.Bool
	b.Store(v)
	return &b
}

// The writes in progress, for the interrupt handler.
var (
	mu       sync.Mutex
	active   = map[*tempFile]string{} // → the path the caller asked for
	guards   = map[*guard]string{}    // → what the operation writes
	report   func(sig os.Signal, paths []string)
	signals  chan os.Signal
	watching bool
)

// HandleInterrupts makes SIGINT and SIGTERM that arrive while a write is in
// progress end the process cleanly: the temporary files of the writes in
// progress are removed, report is called with the signal and the paths being
// written (to say what was interrupted), and the process exits with status
// 128 + the signal's number (130 for SIGINT, 143 for SIGTERM). Outside writes
// the signals keep their usual effect. Commands call it once, at the start; a
// library never does.
func HandleInterrupts(r func(sig os.Signal, paths []string)) {
	mu.Lock()
	defer mu.Unlock()
	if signals == nil {
		signals = make(chan os.Signal, 1)
		go wait()
	}
	report = r
	if len(active)+len(guards) > 0 && !watching {
		signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
		watching = true
	}
}

// caught is set once a signal is being handled: a commit that held the handler
// off stops there instead of going on.
var caught atomic.Bool

// heldOff is set, under mu, by a commit whose renames a signal waited for.
var heldOff bool

// HeldOff says, to the report HandleInterrupts was given, whether the signal
// waited for a set's files to take their names (finished first, each set
// whole) rather than finding no file being renamed.
func HeldOff() bool { return heldOff }

func wait() {
	sig := <-signals
	caught.Store(true)
	mu.Lock() // held until exit: no write completes after the signal
	var paths []string
	for t, p := range active {
		if t.name != "" {
			os.Remove(t.name)
		}
		paths = append(paths, p)
	}
	for g, what := range guards {
		if !g.undo() {
			paths = append(paths, what)
		}
	}
	if report != nil {
		report(sig, paths)
	}
	code := 130
	if s, ok := sig.(syscall.Signal); ok {
		code = 128 + int(s)
	}
	os.Exit(code)
}

// create makes the temporary file for a write of path in dir and registers the
// write, both under the lock: a SIGINT or SIGTERM that arrives meanwhile is
// caught (the signals are watched from before the file exists, so the default
// action cannot leave a named temporary file behind) and its handler, which
// waits for the lock, finds the write registered, removes its file and names
// its path.
func create(dir, base, path string) (*tempFile, error) {
	mu.Lock()
	defer mu.Unlock()
	if report != nil && !watching {
		signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
		watching = true
	}
	t, err := makeTemp(dir, base)
	if err != nil {
		stopWatching()
		return nil, err
	}
	active[t] = path
	return t, nil
}

// makeTemp is createTemp; a test makes a signal arrive inside it.
var makeTemp = createTemp

// end unregisters a write that has finished or failed.
func end(t *tempFile) {
	mu.Lock()
	defer mu.Unlock()
	delete(active, t)
	stopWatching()
}

// stopWatching gives SIGINT and SIGTERM their usual effect again when no write
// is in progress; mu is held.
func stopWatching() {
	if len(active)+len(guards) == 0 && watching {
		signal.Stop(signals)
		watching = false
	}
}

// rename gives t its final name, under the lock, so that the interrupt handler
// sees the write either in progress (and removes its file) or done.
func rename(t *tempFile, target string) error {
	mu.Lock()
	defer mu.Unlock()
	if err := replace(t.name, target); err != nil {
		return err
	}
	t.name = ""
	return nil
}

// setName records the name a temporary file was given, for the interrupt
// handler to remove.
func setName(t *tempFile, name string) {
	mu.Lock()
	t.name = name
	mu.Unlock()
}

type guard struct{ undo func() (finished bool) }

// Guard registers an operation in progress that writes more than one file
// (unpacking a package): a SIGINT or SIGTERM that arrives before done is called
// runs undo, names what in the report (unless undo says it finished the
// operation instead, as it does once every file is in place) and exits as for
// a write. undo runs while
// the handler holds the lock every write takes, so it must not start a write
// itself; the operation keeps its own lock around each step so that undo sees
// every step either done or not begun.
func Guard(what string, undo func() (finished bool)) (done func()) {
	g := &guard{undo}
	mu.Lock()
	defer mu.Unlock()
	if report != nil && !watching {
		signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
		watching = true
	}
	guards[g] = what
	return func() {
		mu.Lock()
		defer mu.Unlock()
		delete(guards, g)
		stopWatching()
	}
}
