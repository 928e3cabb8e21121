package transfer

// The end of an upload: a deadline from its size at the minimum rate,
// never past its token's expiry and a grace period, an idle timeout, and
// the minimum rate over each window. The upload endpoint and the upload
// pages read every body through one paceReader.

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// errTooSlow: an upload was cut by its pace (a *paceError says why).
var errTooSlow = errors.New("upload too slow")

// A paceError says why an upload was cut; it is errTooSlow.
type paceError struct{ why string }

func (e *paceError) Error() string { return e.why }
func (e *paceError) Unwrap() error { return errTooSlow }

// cutReason is why err, which is errTooSlow, says the upload was cut. (A
// function of its own: the errors.As target is allocated only on this
// path.)
func cutReason(err error) string {
	var slow *paceError
	if errors.As(err, &slow) {
		return slow.why
	}
	return err.Error()
}

// A pace is what an upload is held to.
type pace struct {
	rate   int64         // bytes a second, at least, over each window
	window time.Duration // > 0
	idle   time.Duration // the longest wait for a byte
	end    time.Time     // on the wall clock: when the upload is cut whatever its rate
}

// uploadPace is the pace of an upload of at most size bytes whose token
// expires at expires, starting at now (on the clock of the token): it must
// end within RateWindow plus size at MinRate, and by ExpiryGrace after
// expires.
func (o *UploadOptions) uploadPace(size int64, expires, now time.Time) pace {
	d := o.RateWindow + time.Duration(float64(size)/float64(o.MinRate)*float64(time.Second))
	if d < 0 || d > 100*365*24*time.Hour { // overflowed: no end from the size
		d = 100 * 365 * 24 * time.Hour
	}
	if byToken := expires.Add(o.ExpiryGrace).Sub(now); byToken < d {
		d = byToken
	}
	return pace{rate: o.MinRate, window: o.RateWindow, idle: o.IdleTimeout, end: time.Now().Add(d)}
}

// A paceReader reads an upload's body, of at most left bytes more, and
// cuts it, failing every read from then on with a *paceError, when the
// pace's end passes, when fewer than the window's due bytes (rate ×
// window, or all that is left) arrived in a window, or when no byte
// arrives for the idle timeout. Before each read it sets the connection's
// read deadline to the first moment one of these can happen, so that a
// connection that sends nothing is cut at that moment too (which also
// keeps a slow but steady upload from the http.Server's ReadTimeout);
// where the connection has no deadlines (HTTP/2 over some transports,
// tests), the checks run when a read returns, and a body that stalls
// altogether is left to the server's own timeouts.
type paceReader struct {
	r    io.Reader
	rc   *http.ResponseController
	off  bool // the connection has no deadlines
	p    pace
	left int64

	winEnd    time.Time // of the current window
	got, need int64     // in the current window; due in it
	next      string    // what the read deadline set stands for
	err       error     // once cut
}

func newPaceReader(r io.Reader, w http.ResponseWriter, p pace, left int64) *paceReader {
	d := &paceReader{r: r, rc: http.NewResponseController(w), p: p, left: left}
	d.newWindow(time.Now())
	return d
}

// newWindow starts a window ending one window after start.
func (d *paceReader) newWindow(start time.Time) {
	d.winEnd = start.Add(d.p.window)
	d.got = 0
	d.need = max(1, min(int64(float64(d.p.rate)*d.p.window.Seconds()), d.left))
}

// check returns the cut of an upload at now, if it is cut.
func (d *paceReader) check(now time.Time) error {
	if !now.Before(d.p.end) {
		return d.cut("end")
	}
	for !now.Before(d.winEnd) {
		if d.got < d.need {
			return d.cut("window")
		}
		d.newWindow(d.winEnd)
	}
	return nil
}

// cut is the error of the limit why ("end", "window", "idle").
func (d *paceReader) cut(why string) error {
	switch why {
	case "end":
		return &paceError{"the upload did not end by its deadline (the declared size at the minimum rate of " + rateText(d.p.rate) + ", and no later than shortly after its token expires)"}
	case "window":
		return &paceError{fmt.Sprintf("%d bytes arrived in %v, fewer than the %d due at the minimum rate of %s", d.got, d.p.window, d.need, rateText(d.p.rate))}
	default:
		return &paceError{fmt.Sprintf("no byte arrived for %v", d.p.idle)}
	}
}

func rateText(rate int64) string { return humanSize(rate) + "/s" }

func (d *paceReader) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	now := time.Now()
	if err := d.check(now); err != nil {
		d.err = err
		return 0, err
	}
	if !d.off {
		at, why := d.winEnd, "window"
		if d.got >= d.need { // this window is done: the next one's end
			at = d.winEnd.Add(d.p.window)
		}
		if idle := now.Add(d.p.idle); idle.Before(at) {
			at, why = idle, "idle"
		}
		if d.p.end.Before(at) {
			at, why = d.p.end, "end"
		}
		if err := d.rc.SetReadDeadline(at); err != nil {
			d.off = true
		}
		d.next = why
	}
	n, err := d.r.Read(p)
	if n > 0 {
		// Bytes that arrive after a window that was done count in the
		// next one.
		for now := time.Now(); !now.Before(d.winEnd) && d.got >= d.need; {
			d.newWindow(d.winEnd)
		}
		d.got += int64(n)
		d.left -= int64(n)
	}
	if err != nil && err != io.EOF {
		if cut := d.check(time.Now()); cut != nil {
			d.err = cut
			return n, cut
		}
		if !d.off && errors.Is(err, os.ErrDeadlineExceeded) {
			d.err = d.cut(d.next)
			return n, d.err
		}
	}
	return n, err
}
