package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/mcpfile/mcpfile/runtime/fetch"
)

func Example() {
	// A stand-in for the file host; in production AllowHosts names the
	// real one and AllowHTTP and AllowPrivate stay unset.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		fmt.Fprint(w, "a,b\n1,2\n")
	}))
	defer ts.Close()

	f, err := fetch.New(fetch.Options{
		AllowHosts:   []string{ts.Listener.Addr().String()}, // 127.0.0.1:port; without a port, 80 for http only
		AllowHTTP:    true,
		AllowPrivate: []string{"127.0.0.1"},
	})
	if err != nil {
		panic(err)
	}
	r, err := f.Fetch(context.Background(), ts.URL+"/report.csv?sig=abc", 1<<20)
	fmt.Printf("%s, %d bytes, %v\n", r.MediaType, r.Size, err)

	_, err = f.Fetch(context.Background(), ts.URL+"/report.csv", 4)
	fmt.Println(errors.Is(err, fetch.ErrTooLarge))

	_, err = f.Fetch(context.Background(), "https://169.254.169.254/latest/meta-data/", 1<<20)
	fmt.Println(err)
	// Output:
	// text/csv, 8 bytes, <nil>
	// true
	// fetch: URL not allowed: https://169.254.169.254: host "169.254.169.254" is not on the allow-list
}
