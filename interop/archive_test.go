package interop

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/internal/mcptest"
)

// archivePlan is what archive.mjs reads.
type archivePlan struct {
	SDK            string `json:"sdk"`
	Negotiate      string `json:"negotiate,omitempty"`
	URL            string `json:"url"`
	DeclareURL     bool   `json:"declareUrl"`
	Action         string `json:"action"`
	Tool           string `json:"tool"`
	File           string `json:"file"`
	Name           string `json:"name"`
	MimeType       string `json:"mimeType"`
	CompleteWaitMs int    `json:"completeWaitMs"`
	SendBack       bool   `json:"sendBack"`
}

// urlElicitation is a URL-mode elicitation as archive.mjs prints it (the
// page URL's token replaced by its length).
type urlElicitation struct {
	Mode, Message, URL, ElicitationID string
}

// archiveOut is what archive.mjs prints.
type archiveOut struct {
	OK              bool
	Error           string
	ProtocolVersion string
	Elicitations    []struct {
		Via         string // elicitation/create, inputRequests or error (-32042)
		Raw, Parsed *urlElicitation
	}
	Uploads []struct {
		Page *struct{ Status int }
		Form *struct {
			Action      string
			TokenLength int
		}
		Status int
		Body   json.RawMessage
		Error  string
	}
	Links []struct {
		URI, Name, MimeType string
		TextHasURI          bool     `json:"textHasUri"`
		SendBack            []string // the arguments the text says to send back
		Says                []string // which of what the text must say it says
	}
	Completions          []string
	CompletedBeforeRetry *bool
	Calls                []struct {
		Args   []string
		Result *callResult
		Error  *struct {
			Code    any
			Message string
			Data    *struct{ Elicitations []urlElicitation }
			Class   string // the thrown error's class
		}
	}
}

// runArchive runs archive.mjs with p; it fails the test when the client
// could not run its plan.
func runArchive(t *testing.T, node string, p archivePlan) archiveOut {
	t.Helper()
	var out archiveOut
	stderr := runScript(t, node, "archive.mjs", p, &out)
	if !out.OK {
		t.Fatalf("node archive.mjs failed: %s\nstderr: %.4000s", out.Error, stderr)
	}
	return out
}

// TestTypeScriptArchive drives the analyze_document example's
// import_archive, which asks the person for a file through an upload page
// (runtime.ElicitUpload), with the official TypeScript SDK clients playing
// the host and the person's browser: archive.mjs GETs the page, reads the
// form's action and hidden token, and POSTs a FormData (the token, then a
// 3 MiB zip as a Blob) to the action. The tool must answer the size and
// SHA-256 of the bytes sent.
//
// A client that declares elicitation.url ({"elicitation": {"url": {}}} in
// both SDK generations) gets the page through its elicitation handler: as
// elicitation/create on 2025-11-25 (sdk 1.x; client 2.x with legacy
// negotiation), followed by notifications/elicitation/complete, and as a
// tool result's inputRequests on 2026-07-28, which client 2.x's
// multi-round-trip driver hands to the same handler before retrying the
// call with the answer and requestState. A client that does not (most
// chat hosts) gets an ordinary tool result with the page's link and a
// resource_link to it; the script plays the model and the person: it
// uploads through the link's page and calls again. On 2025-11-25 (a
// session) the retry without arguments gets the file; on 2026-07-28 the
// example serves a stateless handler (serve.Handler), so the retry sends
// back the page's file URI as the archive argument, as the text says.
func TestTypeScriptArchive(t *testing.T) {
	node := requireNode(t)
	bin := buildAnalyzeDocument(t)
	base := startHTTP(t, bin, "-store", t.TempDir())

	archive := mcptest.Zip(t, 3<<20, 5)
	path := filepath.Join(t.TempDir(), "archive.zip")
	if err := os.WriteFile(path, archive, 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(archive)
	digest := hex.EncodeToString(sum[:])

	for _, c := range []struct {
		name, sdk, negotiate, version string
		declare                       bool
		action                        string
		via                           string // how the page reached the client
	}{
		{"sdk-v1", "v1", "", "2025-11-25", true, "accept", "elicitation/create"},
		{"client-v2-2026-07-28", "v2", "2026-07-28", "2026-07-28", true, "accept", "inputRequests"},
		{"client-v2-legacy", "v2", "legacy", "2025-11-25", true, "accept", "elicitation/create"},
		{"sdk-v1-declined", "v1", "", "2025-11-25", true, "decline", "elicitation/create"},
		{"client-v2-2026-07-28-cancelled", "v2", "2026-07-28", "2026-07-28", true, "cancel", "inputRequests"},
		{"sdk-v1-without-url", "v1", "", "2025-11-25", false, "", "link"},
		{"client-v2-legacy-without-url", "v2", "legacy", "2025-11-25", false, "", "link"},
		{"client-v2-2026-07-28-without-url", "v2", "2026-07-28", "2026-07-28", false, "", "link"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := runArchive(t, node, archivePlan{
				SDK: c.sdk, Negotiate: c.negotiate, URL: base + "mcp", DeclareURL: c.declare, Action: c.action,
				Tool: "import_archive", File: path, Name: "archive.zip", MimeType: "application/zip", CompleteWaitMs: 10_000,
				SendBack: c.version == "2026-07-28", // stateless: nothing else finds the page
			})
			if out.ProtocolVersion != c.version {
				t.Errorf("negotiated %q, want %q", out.ProtocolVersion, c.version)
			}
			if c.via == "link" {
				wantLink(t, out, base, c.version == "2026-07-28", len(archive))
				wantImported(t, out, len(archive), digest)
				return
			}
			if len(out.Elicitations) != 1 || out.Elicitations[0].Raw == nil {
				t.Fatalf("elicitations %s, want one", js(out.Elicitations))
			}
			e := out.Elicitations[0]
			if r := e.Raw; e.Via != c.via || r.Mode != "url" || !strings.HasPrefix(r.URL, base+"files/page/[") ||
				r.ElicitationID == "" || !strings.Contains(r.Message, "archive to import") {
				t.Errorf("elicitation %s, want a URL-mode one via %s with the page under %sfiles/page/", js(e), c.via, base)
			}
			if c.declare {
				// What the SDK handed the elicitation handler.
				p := e.Parsed
				if p == nil || p.Mode != "url" || p.URL != e.Raw.URL || p.Message != e.Raw.Message {
					t.Errorf("the handler got %s, want the elicitation as sent %s", js(p), js(e.Raw))
				}
				if c.version == "2026-07-28" && p != nil && p.ElicitationID != "" {
					t.Errorf("client 2.x on 2026-07-28 handed the handler elicitationId %q; its 2026 schema dropped it (update interop/README.md)", p.ElicitationID)
				}
			}

			switch {
			case c.action == "decline" || c.action == "cancel":
				if len(out.Calls) != 1 || out.Calls[0].Result == nil {
					t.Fatalf("calls %s, want one result", js(out.Calls))
				}
				r := out.Calls[0].Result
				var sc struct{ Action string }
				if r.IsError || !strings.Contains(r.text(), "declined") || json.Unmarshal(r.StructuredContent, &sc) != nil || sc.Action != c.action {
					t.Errorf("answer %s, want a text saying the person declined and action %s", js(r), c.action)
				}
				if len(out.Uploads) != 0 || len(out.Completions) != 0 {
					t.Errorf("uploads %s, completions %q after a %s, want none", js(out.Uploads), out.Completions, c.action)
				}
				return
			}

			if len(out.Uploads) != 1 {
				t.Fatalf("uploads %s, want one", js(out.Uploads))
			}
			u := out.Uploads[0]
			var stored struct{ Size int64 }
			if u.Page == nil || u.Page.Status != 200 || u.Form == nil || u.Form.Action != "/files/page" || u.Form.TokenLength == 0 ||
				u.Status != 201 || json.Unmarshal(u.Body, &stored) != nil || stored.Size != int64(len(archive)) {
				t.Fatalf("upload through the page %s, want GET 200, then POST /files/page 201 with size %d", js(u), len(archive))
			}

			if c.version == "2026-07-28" {
				if len(out.Completions) != 0 {
					t.Errorf("notifications/elicitation/complete %q on 2026-07-28, which has no channel for them", out.Completions)
				}
			} else if len(out.Completions) != 1 || out.Completions[0] != e.Raw.ElicitationID {
				t.Errorf("notifications/elicitation/complete %q, want one for %s", out.Completions, e.Raw.ElicitationID)
			}
			wantImported(t, out, len(archive), digest)
		})
	}
}

// wantLink checks the link flow of out: one link result to a page under
// base's files/page/, saying what to upload and to call again (and, when
// sendBack, which argument to send back: archive); one upload through it;
// the retry's arguments; and no elicitation or completion.
func wantLink(t *testing.T, out archiveOut, base string, sendBack bool, size int) {
	t.Helper()
	if len(out.Elicitations) != 0 || len(out.Completions) != 0 {
		t.Errorf("elicitations %s, completions %q, want none for a client without elicitation", js(out.Elicitations), out.Completions)
	}
	if len(out.Links) != 1 {
		t.Fatalf("link results %s, want one", js(out.Links))
	}
	l := out.Links[0]
	if !strings.HasPrefix(l.URI, base+"files/page/[") || l.MimeType != "text/html" || !l.TextHasURI ||
		fmt.Sprint(l.SendBack) != "[archive]" || len(l.Says) != 3 {
		t.Errorf("link result %s, want a resource_link to the page under %sfiles/page/, whose text has its URI, says what to "+
			"upload and to call again, and names archive to send back", js(l), base)
	}
	if len(out.Uploads) != 1 {
		t.Fatalf("uploads %s, want one", js(out.Uploads))
	}
	u := out.Uploads[0]
	var stored struct{ Size int64 }
	if u.Page == nil || u.Page.Status != 200 || u.Form == nil || u.Form.Action != "/files/page" ||
		u.Status != 201 || json.Unmarshal(u.Body, &stored) != nil || stored.Size != int64(size) {
		t.Fatalf("upload through the page %s, want GET 200, then POST /files/page 201 with size %d", js(u), size)
	}
	if len(out.Calls) != 2 || len(out.Calls[0].Args) != 0 {
		t.Fatalf("calls %s, want the first without arguments and the retry", js(out.Calls))
	}
	if want := map[bool]string{true: "[archive]", false: "[]"}[sendBack]; fmt.Sprint(out.Calls[1].Args) != want {
		t.Errorf("the retry's arguments %v, want %s", out.Calls[1].Args, want)
	}
}

// wantImported checks that the last call of out answered import_archive's
// result for the archive of size bytes with the SHA-256 digest.
func wantImported(t *testing.T, out archiveOut, size int, digest string) {
	t.Helper()
	last := out.Calls[len(out.Calls)-1].Result
	if last == nil {
		t.Fatalf("calls %s, want import_archive's answer last", js(out.Calls))
	}
	want := fmt.Sprintf("archive.zip: application/zip, %d bytes, sha256:%s", size, digest)
	if last.IsError || !strings.HasPrefix(last.text(), want) {
		t.Errorf("import_archive answered %q (isError %v), want %q", last.text(), last.IsError, want)
	}
	var sc struct {
		Action string
		File   struct {
			Size   int64
			SHA256 string
		}
	}
	if json.Unmarshal(last.StructuredContent, &sc) != nil || sc.Action != "accept" || sc.File.Size != int64(size) || sc.File.SHA256 != digest {
		t.Errorf("structuredContent %s", last.StructuredContent)
	}
}
