package transfer

import (
	"crypto/sha256"
	_ "embed" // for the go:embed directives
	"encoding/base64"
	"html/template"
)

// The page's markup, style and script are the files of pageassets,
// embedded. The style and script are constants, allowed by hash in the
// Content-Security-Policy, which is computed from the embedded bytes; what
// varies (the limits) is in data- attributes, which html/template escapes.
// They hold no comments, which html/template drops from scripts and
// styles: the page would then not carry the text that was hashed.
var (
	//go:embed pageassets/page.css
	pageStyle string
	//go:embed pageassets/page.js
	pageScript string
	//go:embed pageassets/page.html
	pageMarkup string
)

// pageData is what the page template shows.
type pageData struct {
	Server     string // the name of the server that asks, from its Implementation
	Tool       string // the tool whose call asks
	Message    string
	Action     string
	Token      string
	MaxSize    int64
	MaxText    string
	AcceptAttr string
	AcceptText string
}

// pageCSP allows the page's own script and style, by hash, its form's
// post to the same origin, and nothing else.
var pageCSP = "default-src 'none'; script-src '" + cspHash(pageScript) + "'; style-src '" + cspHash(pageStyle) +
	"'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// cspHash is the CSP source of a script or style: its SHA-256.
func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// pageTemplates are the page, the page of a refusal and the page of a
// completed upload (pageassets/page.html), which share their head, with
// the style and script as the templates "style" and "script", text that
// holds no action.
var pageTemplates = func() *template.Template {
	t := template.Must(template.New("style").Parse(pageStyle))
	template.Must(t.New("script").Parse(pageScript))
	return template.Must(t.New("page.html").Parse(pageMarkup))
}()
