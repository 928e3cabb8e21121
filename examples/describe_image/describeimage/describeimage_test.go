package describeimage_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/gif"
	"image/jpeg"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/describe_image/describeimage"
	"github.com/mcpfile/mcpfile/internal/mcptest"
)

func TestToolsList(t *testing.T) {
	cs := mcptest.Connect(t, describeimage.NewServer(describeimage.Options{}), nil, "")
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 3 || res.Tools[0].Name != "describe_image" {
		t.Fatalf("tools = %+v", res.Tools)
	}
	b, _ := json.Marshal(res.Tools[0].InputSchema)
	var s struct {
		Properties map[string]struct {
			Type   string `json:"type"`
			Format string `json:"format"`
			File   struct {
				Accept  []string `json:"accept"`
				MaxSize int64    `json:"maxSize"`
			} `json:"x-mcp-file"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	img := s.Properties["image"]
	if img.Type != "string" || img.Format != "uri" || img.File.MaxSize != 5<<20 ||
		strings.Join(img.File.Accept, " ") != "image/png image/jpeg image/gif image/webp" {
		t.Errorf("inputSchema %s: image is not the declared file", b)
	}
}

func encode(t *testing.T, f func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := f(&buf, image.NewRGBA(image.Rect(0, 0, 5, 7))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// webp is a lossless WebP header for a w×h image (the pixels are not read).
func webp(w, h int) []byte {
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(4+8+10))
	b.WriteString("WEBPVP8L")
	binary.Write(&b, binary.LittleEndian, uint32(10))
	b.WriteByte(0x2f)
	binary.Write(&b, binary.LittleEndian, uint32(w-1)|uint32(h-1)<<14)
	b.Write(make([]byte, 5))
	return b.Bytes()
}

// pngHeader is a PNG that claims to be w×h pixels: its IHDR is valid, it has
// no pixels. Decoding it would allocate w·h·4 bytes; describe_image must not.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32([]byte("IHDR"), w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0)
	binary.Write(&b, binary.BigEndian, uint32(13))
	b.Write(ihdr)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(ihdr))
	return b.Bytes()
}

func TestDescribe(t *testing.T) {
	pngData := mcptest.PNG(t, 4, 3, false)
	jpegData := encode(t, func(b *bytes.Buffer, m image.Image) error { return jpeg.Encode(b, m, nil) })
	gifData := encode(t, func(b *bytes.Buffer, m image.Image) error { return gif.Encode(b, m, nil) })
	webpData := webp(640, 480)
	cs := mcptest.Connect(t, describeimage.NewServer(describeimage.Options{}), nil, "")
	for _, tt := range []struct {
		mediaType, format string
		data              []byte
		w, h              int
	}{
		{"image/png", "png", pngData, 4, 3},
		{"image/jpeg", "jpeg", jpegData, 5, 7},
		{"image/gif", "gif", gifData, 5, 7},
		{"image/webp", "webp", webpData, 640, 480},
	} {
		res := mcptest.Call(t, cs, "describe_image", map[string]any{"image": mcptest.DataURI(tt.mediaType, tt.data)})
		if res.IsError {
			t.Errorf("%s: isError %q", tt.mediaType, mcptest.Text(t, res))
			continue
		}
		sum := sha256.Sum256(tt.data)
		want := map[string]any{"mediaType": tt.mediaType, "format": tt.format, "width": float64(tt.w), "height": float64(tt.h),
			"size": float64(len(tt.data)), "sha256": hex.EncodeToString(sum[:])}
		got, _ := json.Marshal(res.StructuredContent)
		wantJSON, _ := json.Marshal(want)
		if !bytes.Equal(got, wantJSON) {
			t.Errorf("%s: structuredContent\n got %s\nwant %s", tt.mediaType, got, wantJSON)
		}
	}
}

func TestDescribeRejects(t *testing.T) {
	pngData := mcptest.PNG(t, 2, 2, false)
	tooBig := append(bytes.Clone(pngData), make([]byte, 5<<20)...)
	cs := mcptest.Connect(t, describeimage.NewServer(describeimage.Options{}), nil, "")
	for _, tt := range []struct {
		name  string
		image any
		want  string
	}{
		{"too big", mcptest.DataURI("image/png", tooBig), fmt.Sprintf("Argument 'image' exceeds maxSize: received %d bytes, limit is 5242880.", len(tooBig))},
		{"not an accepted type", "data:application/pdf;base64," + base64.StdEncoding.EncodeToString([]byte("%PDF-1.4\n")), "Argument 'image' has a media type that accept does not allow"},
		{"bytes not matching the type", mcptest.DataURI("image/png", []byte("GIF89a this is not a png")), "Argument 'image' fails the content check"},
		{"https URL", "https://example.com/cat.png", `Argument 'image' is not a data: URI: received scheme "https:"`},
		{"broken URI", "data:image/png;base64,iVBOR!!", "Argument 'image' is not a valid data: URI"},
		{"wrong JSON type", 42, "Argument 'image' has the wrong JSON type: received a number, want a data: URI string."},
		{"huge dimensions in a tiny file", mcptest.DataURI("image/png", pngHeader(100000, 100000)), "the image is 100000×100000 pixels; each side must be between 1 and 16384"},
		{"corrupt header", mcptest.DataURI("image/png", append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 30)...)), "the image header cannot be read"},
	} {
		res := mcptest.Call(t, cs, "describe_image", map[string]any{"image": tt.image})
		text := mcptest.Text(t, res)
		if !res.IsError || !strings.Contains(text, tt.want) {
			t.Errorf("%s: isError=%v %q, want %q", tt.name, res.IsError, text, tt.want)
		}
	}
}

// TestLargeImageOverHTTP sends a real 4.8 MB PNG over streamable HTTP, which
// the SDK's default 4 MiB body limit would refuse.
func TestLargeImageOverHTTP(t *testing.T) {
	data := mcptest.PNG(t, 1100, 1100, true)
	if len(data) < 4<<20 || len(data) > 5<<20 {
		t.Fatalf("test PNG is %d bytes, want between 4 and 5 MiB", len(data))
	}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		cs := mcptest.ConnectHTTP(t, describeimage.NewServer(describeimage.Options{}), mcptest.Limit(t, describeimage.MaxRequestBytes), nil, version)
		res := mcptest.Call(t, cs, "describe_image", map[string]any{"image": mcptest.DataURI("image/png", data)})
		if res.IsError {
			t.Fatalf("%s: %s", version, mcptest.Text(t, res))
		}
		if m := res.StructuredContent.(map[string]any); m["width"] != 1100.0 || m["size"] != float64(len(data)) {
			t.Errorf("%s: %v", version, m)
		}
	}
	cs := mcptest.ConnectHTTP(t, describeimage.NewServer(describeimage.Options{}), mcp.DefaultMaxRequestBodyBytes, nil, "")
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "describe_image", Arguments: map[string]any{"image": mcptest.DataURI("image/png", data)}}); err == nil {
		t.Error("the SDK's default body limit let the image through")
	}
}
