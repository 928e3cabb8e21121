package conform

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
)

// trap is where the suite's http: and https: URLs point: a loopback HTTP
// server and a loopback TCP listener (for https:, whose TLS handshake it
// never answers); any connection to either is a fetch.
type trap struct {
	http  *httptest.Server
	tls   net.Listener
	hits  atomic.Int64
	seen  chan string
	files string // a directory with a file the file: and path checks name
}

func newTrap() (*trap, error) {
	t := &trap{seen: make(chan string, 1024)}
	t.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.hits.Add(1)
		select {
		case t.seen <- "http:" + r.URL.Path:
		default:
		}
		http.NotFound(w, r)
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.http.Close()
		return nil, fmt.Errorf("listening on loopback for the fetch check: %v", err)
	}
	t.tls = l
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.hits.Add(1)
			select {
			case t.seen <- "https:" + l.Addr().String():
			default:
			}
			c.Close()
		}
	}()
	dir, err := os.MkdirTemp("", "mcpfile-conform-")
	if err != nil {
		t.close()
		return nil, err
	}
	t.files = dir
	if err := os.WriteFile(filepath.Join(dir, "conform.png"), pngFile(0), 0o644); err != nil {
		t.close()
		return nil, err
	}
	return t, nil
}

func (t *trap) paths() []string {
	var out []string
	for {
		select {
		case p := <-t.seen:
			out = append(out, p)
		default:
			sort.Strings(out)
			return unique(out)
		}
	}
}

func (t *trap) close() {
	t.http.Close()
	t.tls.Close()
	if t.files != "" {
		os.RemoveAll(t.files)
	}
}
