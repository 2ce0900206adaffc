package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/trace"
	"strings"
	"testing"
	"time"

	xtrace "golang.org/x/exp/trace"
)

// goStates is how long one goroutine spent in each scheduling state
// while a runtime execution trace was recorded: running on a thread,
// runnable (ready, waiting for a processor), waiting (blocked on a
// channel, a lock, a timer or the network) and in system calls.
type goStates struct {
	found                                     bool
	running, runnable, waiting, syscall, life time.Duration
	// runnableAfter splits runnable by what came before it: "Running"
	// (preempted or yielding), "Waiting" (woken up) or "Syscall".
	runnableAfter map[string]time.Duration
}

// share returns d as a percentage of the goroutine's traced life.
func (s goStates) share(d time.Duration) float64 {
	if s.life <= 0 {
		return 0
	}
	return 100 * float64(d) / float64(s.life)
}

// goroutineStates reads an execution trace (runtime/trace) and returns the
// states of the first goroutine seen with a frame whose function name
// contains fn, from its first state change in the trace to its last.
func goroutineStates(r io.Reader, fn string) (goStates, error) {
	tr, err := xtrace.NewReader(r)
	if err != nil {
		return goStates{}, err
	}
	s := goStates{runnableAfter: map[string]time.Duration{}}
	id := xtrace.NoGoroutine
	var last, first xtrace.Time
	var cur, before xtrace.GoState
	for {
		ev, err := tr.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return goStates{}, err
		}
		if ev.Kind() != xtrace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != xtrace.ResourceGoroutine {
			continue
		}
		g := st.Resource.Goroutine()
		from, to := st.Goroutine()
		if id == xtrace.NoGoroutine {
			// A transition out of running carries the goroutine's own
			// stack; one into another state may carry its waker's.
			if from != xtrace.GoRunning || !stackHas(st.Stack, fn) {
				continue
			}
			id, first, last, cur = g, ev.Time(), ev.Time(), from
		}
		if g != id {
			continue
		}
		d := time.Duration(ev.Time() - last)
		switch cur {
		case xtrace.GoRunning:
			s.running += d
		case xtrace.GoRunnable:
			s.runnable += d
			s.runnableAfter[before.String()] += d
		case xtrace.GoWaiting:
			s.waiting += d
		case xtrace.GoSyscall:
			s.syscall += d
		}
		if to == xtrace.GoRunnable {
			before = from
		}
		cur, last = to, ev.Time()
	}
	if id == xtrace.NoGoroutine {
		return s, nil
	}
	s.found, s.life = true, time.Duration(last-first)
	return s, nil
}

func stackHas(stk xtrace.Stack, fn string) bool {
	for f := range stk.Frames() {
		if strings.Contains(f.Func, fn) {
			return true
		}
	}
	return false
}

// traceWriter records a runtime execution trace of the stages run into
// the file ACRAWLER_THROUGHPUT_TRACE names, if it names one, and then
// reports where the crawl's committing goroutine spent its time: the
// single writer, whose pace the crawl phase follows. stop ends the
// recording and reports.
func traceWriter(b *testing.B) (stop func()) {
	file := os.Getenv("ACRAWLER_THROUGHPUT_TRACE")
	if file == "" {
		return func() {}
	}
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		b.Logf("execution trace not recorded: %v", err)
		return func() {}
	}
	return func() {
		trace.Stop()
		f.Close()
		f, err := os.Open(file)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		s, err := goroutineStates(f, "engine.(*Engine).commitLoop")
		if err != nil {
			b.Fatal(err)
		}
		if !s.found {
			b.Logf("execution trace: no committing goroutine found")
			return
		}
		b.ReportMetric(s.share(s.running), "writer-running-%")
		b.ReportMetric(s.share(s.runnable), "writer-runnable-%")
		b.ReportMetric(s.share(s.syscall), "writer-syscall-%")
		b.ReportMetric(s.share(s.waiting), "writer-waiting-%")
		fmt.Printf("the committing goroutine over %s: running %s, runnable %s (%s after running, %s after waiting, %s after a system call), in system calls %s, waiting %s\n",
			s.life.Round(time.Millisecond), s.running.Round(time.Millisecond), s.runnable.Round(time.Millisecond),
			s.runnableAfter["Running"].Round(time.Millisecond), s.runnableAfter["Waiting"].Round(time.Millisecond),
			s.runnableAfter["Syscall"].Round(time.Millisecond), s.syscall.Round(time.Millisecond), s.waiting.Round(time.Millisecond))
	}
}

// TestGoroutineStates reads a trace of a goroutine that works, then waits
// on a channel: it is found by its function, and its states add up to its
// life.
func TestGoroutineStates(t *testing.T) {
	file := t.TempDir() + "/trace.out"
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := trace.Start(f); err != nil {
		t.Skipf("tracing: %v", err)
	}
	release, done := make(chan struct{}), make(chan struct{})
	go tracedWorkThenWait(release, done)
	time.Sleep(20 * time.Millisecond)
	close(release)
	<-done
	trace.Stop()
	f.Close()
	r, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := goroutineStates(r, "tracedWorkThenWait")
	if err != nil {
		t.Fatal(err)
	}
	if !s.found || s.running <= 0 || s.waiting <= 0 {
		t.Fatalf("states %+v; want the goroutine found, running and waiting", s)
	}
	if sum := s.running + s.runnable + s.waiting + s.syscall; sum != s.life {
		t.Errorf("states add up to %s, life %s", sum, s.life)
	}
	if s, err := goroutineStates(strings.NewReader("not a trace"), "x"); err == nil {
		t.Errorf("a file that is no trace read as %+v", s)
	}
}

// tracedWorkThenWait works a little, then blocks until release, then
// works again before it ends.
func tracedWorkThenWait(release <-chan struct{}, done chan<- struct{}) {
	spin := func() {
		for i := 0; i < 1000; i++ {
			runtime.Gosched()
		}
	}
	spin()
	<-release
	spin()
	close(done)
}
