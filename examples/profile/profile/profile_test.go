package profile_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/profile/profile"
	"github.com/mcpfile/mcpfile/internal/mcptest"
)

// user answers elicitations from a script and records the messages.
type user struct {
	mu       sync.Mutex
	answers  []*mcp.ElicitResult
	messages []string
}

func (u *user) elicit(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.messages = append(u.messages, req.Params.Message)
	if len(u.answers) == 0 {
		return nil, errors.New("asked more often than scripted")
	}
	a := u.answers[0]
	u.answers = u.answers[1:]
	return a, nil
}

func pick(photo string) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"photo": photo}}
}

var protocols = []string{"2026-07-28", "2025-11-25"}

func TestCreateProfile(t *testing.T) {
	good := mcptest.DataURI("image/png", mcptest.PNG(t, 32, 32, false))
	tiny := mcptest.DataURI("image/png", mcptest.PNG(t, 4, 4, false))
	tests := []struct {
		name    string
		args    map[string]any
		answers []*mcp.ElicitResult
		isError bool
		want    []string // substrings of the result text
		asked   int
	}{
		{"photo as argument", map[string]any{"displayName": "Mona", "photo": good}, nil, false, []string{`"photoFrom":"argument"`, `"width":32`}, 0},
		{"photo from the user", map[string]any{"displayName": "Mona"}, []*mcp.ElicitResult{pick(good)}, false, []string{`"photoFrom":"user"`, `"format":"png"`}, 1},
		{"wrong file, then right", map[string]any{"displayName": "Mona"}, []*mcp.ElicitResult{pick("data:text/plain,hi"), pick(good)}, false, []string{`"photoFrom":"user"`}, 2},
		{"wrong three times", map[string]any{"displayName": "Mona"}, []*mcp.ElicitResult{pick("https://x/y.png"), pick("data:image/png;base64,AAA"), pick("data:image/gif;base64,R0lGODlh")}, true,
			[]string{"not accepted after 3 tries"}, 3},
		{"declined", map[string]any{"displayName": "Mona"}, []*mcp.ElicitResult{{Action: "decline"}}, false, []string{`"photoFrom":"declined"`}, 1},
		{"cancelled", map[string]any{"displayName": "Mona"}, []*mcp.ElicitResult{{Action: "cancel"}}, false, []string{`"photoFrom":"cancelled"`}, 1},
		{"too small, then right", map[string]any{"displayName": "Mona"}, []*mcp.ElicitResult{pick(tiny), pick(good)}, false, []string{`"photoFrom":"user"`}, 2},
		{"too small as argument", map[string]any{"displayName": "Mona", "photo": tiny}, nil, true, []string{"the photo is 4×4 pixels; a profile photo needs at least 16×16"}, 0},
		{"bad photo argument", map[string]any{"displayName": "Mona", "photo": "data:image/gif;base64,R0lGODlh"}, nil, true, []string{"Argument 'photo' has a media type that accept does not allow"}, 0},
	}
	for _, version := range protocols {
		for _, tt := range tests {
			t.Run(version+"/"+tt.name, func(t *testing.T) {
				u := &user{answers: tt.answers}
				cs := mcptest.Connect(t, profile.NewServer(), &mcp.ClientOptions{ElicitationHandler: u.elicit}, version)
				res := mcptest.Call(t, cs, "create_profile", tt.args)
				text := mcptest.Text(t, res)
				if res.IsError != tt.isError {
					t.Errorf("isError = %v: %s", res.IsError, text)
				}
				for _, want := range tt.want {
					if !strings.Contains(text, want) {
						t.Errorf("result %q lacks %q", text, want)
					}
				}
				if len(u.messages) != tt.asked {
					t.Errorf("asked %d times, want %d: %q", len(u.messages), tt.asked, u.messages)
				}
				for i, m := range u.messages {
					if !strings.HasPrefix(m, `Please select a profile photo for "Mona".`) || i > 0 && !strings.Contains(m, "That was not accepted: ") {
						t.Errorf("message %d = %q", i+1, m)
					}
				}
			})
		}
	}
}

func TestCreateProfileWithoutElicitation(t *testing.T) {
	for _, version := range protocols {
		cs := mcptest.Connect(t, profile.NewServer(), nil, version)
		res := mcptest.Call(t, cs, "create_profile", map[string]any{"displayName": "Mona"})
		if text := mcptest.Text(t, res); !res.IsError || !strings.Contains(text, "pass it as 'photo'") {
			t.Errorf("%s: isError=%v %q, want the fallback advice", version, res.IsError, text)
		}
	}
}

func TestCreateProfileOverHTTP(t *testing.T) {
	good := mcptest.DataURI("image/png", mcptest.PNG(t, 700, 700, true)) // about 1.97 MB of the 2 MiB allowed
	for _, version := range protocols {
		u := &user{answers: []*mcp.ElicitResult{pick("data:image/png;base64,AAAA"), pick(good)}}
		cs := mcptest.ConnectHTTP(t, profile.NewServer(), mcptest.Limit(t, profile.MaxRequestBytes), &mcp.ClientOptions{ElicitationHandler: u.elicit}, version)
		res := mcptest.Call(t, cs, "create_profile", map[string]any{"displayName": "Mona"})
		if text := mcptest.Text(t, res); res.IsError || !strings.Contains(text, `"width":700`) || len(u.messages) != 2 {
			t.Errorf("%s: isError=%v %q after %d asks", version, res.IsError, text, len(u.messages))
		}
	}
}

func TestToolsList(t *testing.T) {
	cs := mcptest.Connect(t, profile.NewServer(), nil, "")
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(res.Tools) != 1 {
		t.Fatalf("tools/list: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.Tools[0].InputSchema)
	if !strings.Contains(string(b), `"format":"uri","type":"string","x-mcp-file":{"accept":["image/png","image/jpeg","image/webp"],"maxSize":2097152}}`) {
		t.Errorf("inputSchema %s lacks the photo file argument", b)
	}
	if strings.Contains(string(b), `"required":["displayName","photo"]`) {
		t.Error("the optional photo is required")
	}
}
