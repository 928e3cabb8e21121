// Package profile is the profile example server: one tool, create_profile,
// that asks the user for a photo through elicitation when the call does not
// carry one, and validates it like a file argument.
package profile

//go:generate go run github.com/mcpfile/mcpfile/cmd/mcpfilegen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/internal/imageinfo"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/serve"
)

// Profile is the answer of create_profile.
type Profile struct {
	DisplayName string `json:"displayName"`
	// Photo describes the photo; it is absent when the user declined or
	// cancelled the form.
	Photo *Photo `json:"photo,omitempty"`
	// PhotoFrom says where the photo came from: "argument", "user", or, when
	// there is none, "declined" or "cancelled".
	PhotoFrom string `json:"photoFrom"`
}

// Photo describes a profile photo.
type Photo struct {
	MediaType string `json:"mediaType"`
	imageinfo.Info
}

// MinSide is the smallest width and height of a profile photo.
const MinSide = 16

// Tool is the create_profile tool.
var Tool = &mcp.Tool{
	Name: "create_profile",
	Description: "Create a user profile. Pass the photo as 'photo' if you have it; " +
		"otherwise the user is asked to pick one.",
}

// NewServer returns the profile server.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "profile", Version: "v0.1.0"}, nil)
	runtime.AddTool(s, Tool, CreateProfile)
	return s
}

// MaxRequestBytes is the request body limit the server needs: on protocol
// 2026-07-28 the retry that answers the form carries the arguments and the
// elicited photo together.
func MaxRequestBytes() (int64, error) {
	n, err := runtime.RequestBytes(Args{}.MCPSchema(), PhotoForm{}.MCPSchema())
	if err != nil {
		return 0, err
	}
	return max(n, mcp.DefaultMaxRequestBodyBytes), nil
}

// ServeOptions returns the options to serve the server with
// (serve.Handler, serve.Stdio): on protocol 2026-07-28 the photo comes
// back in the retry of the call, with its arguments, so the request limit
// counts the form's file too.
func ServeOptions() serve.Options {
	return serve.Options{Forms: []json.RawMessage{PhotoForm{}.MCPSchema()}}
}

// elicitID names the form in the 2026-07-28 inputRequests, as in SEP-2356's example.
const elicitID = "profile_photo"

// CreateProfile is the create_profile handler.
func CreateProfile(ctx context.Context, req *mcp.CallToolRequest, args Args) (*mcp.CallToolResult, Profile, error) {
	p := Profile{DisplayName: args.DisplayName}
	if args.DisplayName == "" {
		return nil, p, errors.New("'displayName' must not be empty")
	}
	file := args.Photo
	p.PhotoFrom = "argument"
	if file == nil {
		ans, pending, err := runtime.Elicit(ctx, req, "Please select a profile photo for "+quote(args.DisplayName)+".",
			&runtime.ElicitOptions[PhotoForm]{
				ID: elicitID,
				// A photo the user can fix (too small, unreadable) is asked for again.
				Check: func(f PhotoForm) error { _, err := inspect(f.Photo); return err },
			})
		if errors.Is(err, runtime.ErrElicitationUnsupported) {
			return nil, p, errors.New("this client cannot ask the user for a photo: " +
				"ask the user to attach one and pass it as 'photo' (a data: URI)")
		}
		if pending != nil || err != nil {
			return pending, p, err
		}
		switch ans.Action {
		case runtime.Decline:
			p.PhotoFrom = "declined"
			return nil, p, nil
		case runtime.Cancel:
			p.PhotoFrom = "cancelled"
			return nil, p, nil
		}
		file, p.PhotoFrom = &ans.Value.Photo, "user"
	}
	info, err := inspect(*file)
	if err != nil {
		return nil, Profile{}, err
	}
	p.Photo = &Photo{MediaType: file.MediaType, Info: info}
	return nil, p, nil
}

// inspect reads the photo's header (the runtime has checked its type, size
// and signature) and checks that it is large enough.
func inspect(f runtime.File) (imageinfo.Info, error) {
	r, err := f.Open()
	if err != nil {
		return imageinfo.Info{}, err
	}
	defer r.Close()
	info, err := imageinfo.Inspect(r, r.Size())
	if err != nil {
		return info, fmt.Errorf("the photo cannot be used: %v", err)
	}
	if info.Width < MinSide || info.Height < MinSide {
		return info, fmt.Errorf("the photo is %d×%d pixels; a profile photo needs at least %d×%d", info.Width, info.Height, MinSide, MinSide)
	}
	return info, nil
}

// quote shortens a name from the client for a message to the user.
func quote(s string) string {
	r := []rune(s)
	if len(r) > 64 {
		s = string(r[:64]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
