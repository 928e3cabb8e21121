// Package fetch downloads a file from a URL that a request names, without
// letting that URL reach what it should not (server-side request
// forgery): the cloud metadata service at 169.254.169.254, the server's
// own loopback, the private network behind it.
//
// It is for file arguments that arrive as a link rather than as bytes,
// such as those of ChatGPT's Apps SDK, {"download_url": "https://…",
// "file_id": "file_…"}: the runtime's decoder calls [Fetcher.Fetch] with
// the link and the argument's maxSize, and checks the bytes it gets back
// (accept, content) as it checks a data: URI's. The package knows nothing
// of MCP; it can be used alone.
//
// # Rules
//
// A [Fetcher] is built by [New] from [Options]; its allow-list is
// required. Every fetch goes through these steps, each refusal an error
// wrapping one of the package's Err values:
//
//  1. The URL, before any network activity ([ErrNotAllowed]): absolute;
//     scheme https, or http with Options.AllowHTTP; no userinfo; a host and
//     port on Options.AllowHosts, where a host listed without a port allows
//     the scheme's default port only. Hosts are compared in lower case as
//     written, so an internationalized name must be written in punycode
//     (non-ASCII hosts are refused) and "*.example.com" matches
//     a.example.com and a.b.example.com but not example.com. An IP
//     address matches only the same address listed. [Fetcher.Check] runs
//     this step alone.
//  2. Every connection ([ErrPrivateAddress]): the fetcher dials through
//     its own DialContext, which resolves the host once, refuses it if any
//     address it resolves to is blocked, and dials the checked addresses
//     themselves, never the name, so DNS rebinding between check and
//     connect cannot get around it. The dialer's Control function checks
//     the address again at connect time. Blocked are loopback
//     (127/8, ::1), private (RFC 1918, fc00::/7), link-local (169.254/16,
//     fe80::/10, which holds the metadata address), multicast,
//     unspecified and 0/8, shared 100.64/10 (CGNAT, Alibaba's metadata),
//     Azure's 168.63.129.16, the documentation, benchmarking and reserved
//     ranges, Teredo, and IPv4-mapped, IPv4-compatible, NAT64 and 6to4
//     forms of blocked IPv4 addresses. Hosts on Options.AllowPrivate skip
//     this step (a test server on 127.0.0.1). No proxy is used, whatever
//     the environment says, since a proxy would dial past these checks.
//  3. Redirects ([ErrRedirect]): at most Options.MaxRedirects (3 by
//     default), each target put through step 1 (so https to http is
//     refused unless AllowHTTP) and, when dialed, step 2. The Referer
//     header, which would carry the previous URL, is not sent.
//  4. The status ([ErrStatus]): anything but 2xx fails with the status;
//     the body of the answer is not read.
//  5. The size ([ErrTooLarge]): a Content-Length above maxSize fails
//     before reading; otherwise the body is read through a limit of
//     maxSize+1 bytes, and a body that reaches it fails. No compression
//     is asked for, so the bytes counted are the bytes returned.
//  6. The time ([ErrTimeout]): Options.Timeout (30 s by default) bounds
//     the whole fetch, so a server that trickles its headers or body is
//     cut off.
//
// Errors show URLs as scheme://host[:port] only, since a download URL's
// query often carries a signature, and never hold body bytes.
//
// Each fetch, done or refused, is one log/slog record to Options.Logger
// (slog.Default() when nil), "fetch" or "refused" with the reason
// (notAllowed, privateAddress, redirect, maxSizeExceeded, status, timeout,
// canceled, network), the host as scheme://host[:port], the bytes and
// the duration; and it is measured through OpenTelemetry's metric API
// (mcpfile.fetches, mcpfile.fetch.bytes, mcpfile.fetch.duration,
// mcpfile.rejections), a no-op until the program sets a MeterProvider.
//
// # Why bytes in memory
//
// Fetch returns the body as a []byte bounded by maxSize rather than
// streaming into an io.Writer: the runtime's decoder holds a file argument
// in memory anyway (a data: URI's bytes are in the request), the checks it
// runs after (content sniffing) want the bytes, and a bounded buffer makes
// "never more than maxSize+1" a property of one line. A server that takes
// files too large to hold should use out-of-band upload
// (runtime/transfer) instead.
//
// Options.Resolver is an interface that *net.Resolver satisfies rather than
// a *net.Resolver, so that tests map names to addresses without running a
// DNS server; Options.TLSConfig carries a test server's roots.
//
// # Example
//
//	f, err := fetch.New(fetch.Options{
//		AllowHosts: []string{"files.oaiusercontent.com", "*.example-cdn.com"},
//	})
//	…
//	r, err := f.Fetch(ctx, arg.DownloadURL, 5<<20)
//	switch {
//	case errors.Is(err, fetch.ErrTooLarge):
//		// the argument exceeds maxSize
//	case err != nil:
//		// refused or failed; err names the rule and the host
//	}
//	use(r.Body, r.MediaType)
package fetch
