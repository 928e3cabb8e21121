// Package browsertest tests the upload pages of runtime.ElicitUpload in a
// real browser: a headless Chromium, driven from Go with chromedp, opens the
// page that an MCP client was asked to show, chooses a file and sends it,
// with JavaScript and without, while the tool call waits for the upload.
//
// The tests cover what net/http cannot show: that the page's own script
// runs under its Content-Security-Policy, checks the file before sending it
// and reports progress; that the plain form works without JavaScript; what
// the browser shows when the server refuses a file; and what the tool call
// sees when the browser goes away in the middle of an upload.
//
// It is a module of its own so that chromedp never enters the main
// module's go.mod. The package holds no code: its tests are the point. They
// need the chromium binary (the Debian package chromium) in PATH; without it
// they skip, and under CI=true they fail. Run them from this directory:
//
//	go test -race ./...
package browsertest
