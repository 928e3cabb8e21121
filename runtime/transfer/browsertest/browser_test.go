package browsertest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mcpfile/mcpfile/internal/prereq"
)

// The browser: one headless Chromium for the test binary, started by the
// first test that needs it and stopped by TestMain. Each test works in a
// tab of its own, in a browser context (a fresh profile) of its own.
var chrome struct {
	once sync.Once
	ctx  context.Context // the browser's chromedp context
	stop func()
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if chrome.stop != nil {
		chrome.stop()
	}
	os.Exit(code)
}

// chromiumNames are the names the chromium binary goes by: Debian's
// package, and the older name of some distributions.
var chromiumNames = []string{"chromium", "chromium-browser"}

func chromiumPath() string {
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// tabTimeout bounds what one test does in its tab: the tab closes then,
// and the actions waiting in it fail. queryTimeout bounds the reading of
// an element that should be there already.
const (
	tabTimeout   = 30 * time.Second
	queryTimeout = 5 * time.Second
)

// A tab is a browser tab that a test drives, and what the page in it
// wrote to the console.
type tab struct {
	ctx     context.Context
	close   func() error // closes the tab, as a person closes it, and waits for it
	console *console

	violations atomic.Bool // the test makes the page break its CSP
}

// expectViolations stops the check, when the test ends, that the page
// broke no rule of its Content-Security-Policy: the test makes it break
// one, and checks the console itself.
func (tb *tab) expectViolations() { tb.violations.Store(true) }

// newTab opens a tab in a new browser context, closed when the test ends
// (or after tabTimeout). It [prereq.Require]s chromium.
func newTab(t *testing.T) *tab {
	t.Helper()
	path := chromiumPath()
	prereq.Require(t, path != "", "chromium",
		"install the Debian package chromium (apt-get install chromium), or put a chromium binary in PATH")
	chrome.once.Do(func() { startChromium(path) })
	if chrome.err != nil {
		t.Fatalf("starting %s: %v", path, chrome.err)
	}
	ctx, cancelTimeout := context.WithTimeout(chrome.ctx, tabTimeout)
	ctx, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(func() { cancel(); cancelTimeout() })
	if err := chromedp.Do(ctx); err != nil { // opens the tab
		t.Fatalf("opening a tab: %v", err)
	}
	tb := &tab{ctx: ctx, close: func() error { return chromedp.Cancel(ctx) }, console: watchConsole(ctx)}
	// Whatever the test did with the page, its script threw nothing, and
	// it broke no rule of its Content-Security-Policy.
	t.Cleanup(func() {
		for _, m := range tb.console.messages() {
			if m.IsException() || isCSPViolation(m) && !tb.violations.Load() {
				t.Errorf("console: %s", m)
			}
		}
	})
	return tb
}

// startChromium starts the browser, headless, with the flags a container
// needs: no sandbox as root (Chromium refuses to start sandboxed then), and
// shared memory in /tmp rather than a small /dev/shm.
func startChromium(path string) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Flag("headless", "new"),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	chrome.ctx = ctx
	chrome.stop = func() { cancel(); cancelAlloc() }
	// Started without a timeout: the first Run binds the browser's life to
	// its context.
	chrome.err = chromedp.Do(ctx)
}

// do runs the actions in the tab, failing the test on an error.
func (tb *tab) do(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(tb.ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// text returns the text content of the element sel selects, failing the
// test when there is none.
func (tb *tab) text(t *testing.T, sel string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, queryTimeout)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("the text of %s: %v", sel, err)
	}
	return s
}

// A console is what a page wrote to the console of its tab (the console
// API, uncaught exceptions and the browser's log, which reports
// Content-Security-Policy violations), in order.
type console struct {
	mu      sync.Mutex
	msgs    []chromedp.ConsoleMessage
	changed chan struct{} // closed and replaced at each message
}

func watchConsole(ctx context.Context) *console {
	c := &console{changed: make(chan struct{})}
	messages := chromedp.Console(ctx) // subscribed now
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			c.mu.Lock()
			c.msgs = append(c.msgs, m)
			close(c.changed)
			c.changed = make(chan struct{})
			c.mu.Unlock()
		}
	}()
	return c
}

func (c *console) messages() []chromedp.ConsoleMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]chromedp.ConsoleMessage(nil), c.msgs...)
}

// waitFor waits for a message that match accepts, and returns the messages
// up to it.
func (c *console) waitFor(ctx context.Context, match func(chromedp.ConsoleMessage) bool) ([]chromedp.ConsoleMessage, error) {
	for {
		c.mu.Lock()
		for i, m := range c.msgs {
			if match(m) {
				msgs := append([]chromedp.ConsoleMessage(nil), c.msgs[:i+1]...)
				c.mu.Unlock()
				return msgs, nil
			}
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// isCSPViolation reports whether m is the browser saying that the page
// broke its Content-Security-Policy.
func isCSPViolation(m chromedp.ConsoleMessage) bool {
	return strings.Contains(m.Text, "Content Security Policy")
}
