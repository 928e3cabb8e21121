// Package tag parses the `mcpfile` struct tag. It is pure: it knows the
// grammar, not the Go types the tag stands on, which the model phase checks.
//
// A tag is a comma-separated list of key=value items, without spaces:
//
//	accept=<entry>[|<entry>…]    media types (type/subtype), wildcard subtypes (type/*)
//	                             and extensions (.ext); repeating accept= appends
//	maxSize=<n>[unit]            decoded bytes per file; unit B, KB, MB, GB (powers of
//	                             1000) or KiB, MiB, GiB (powers of 1024); no unit is B
//	maxFiles=<n>                 the most files a slice field takes (becomes maxItems)
//	minFiles=<n>                 the fewest files a slice field takes (becomes minItems);
//	                             0 lets a required slice field be empty
//	filename=<json name>         the sibling field that carries the file's name
//	sniff=false                  turn the content check off for this field
//	transfer=inline|upload       SEP-2631 transfer modes (becomes transferModes):
//	                             inline, upload or both, in either order; upload
//	                             needs transfer.Register on the server (runtime/transfer);
//	                             an upload-only field's maxSize does not count
//	                             toward runtime.MaxRequestBytes
//	form=filedata|openai         the file arrives as a host's object instead of a
//	                             data: URI: Odeus FileData ({fileName, mimeType,
//	                             base64, size?, lastModified?}) or ChatGPT's fileParams
//	                             ({download_url, file_id, mime_type?, file_name?};
//	                             needs a fetcher on the server, runtime/fetch); its
//	                             schema is an object, its constraints in x-mcpfile-form
//
// The empty tag `mcpfile:""` marks a file field without constraints.
//
// The grammar is strict: unknown keys, repeated keys (other than accept),
// empty items and values, bad numbers and units, bad media types,
// transfer modes other than exactly inline and upload, each at most once,
// forms other than exactly filedata and openai, and form together with
// transfer or filename are errors. Media types are checked against RFC 6838's restricted-name
// characters and the registered top-level types, and lower-cased, as are
// extensions. "*/*" is rejected: it accepts everything, which is what leaving
// accept out says.
package tag

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// MaxSizeLimit is the largest maxSize a tag may give: 2^53-1 bytes, the
// largest integer every JSON reader represents exactly.
const MaxSizeLimit = 1<<53 - 1

// MaxFilesLimit is the largest maxFiles a tag may give.
const MaxFilesLimit = math.MaxInt32

// Tag is a parsed mcpfile tag.
type Tag struct {
	Accept      []string // lower-cased media types, type/* wildcards and .ext entries, in tag order
	MaxSize     int64    // bytes; 0 when absent
	MaxFiles    int      // 0 when absent
	MinFiles    int      // meaningful when HasMinFiles
	HasMinFiles bool     // minFiles was given
	Filename    string   // JSON name of the companion name field; empty when absent
	NoSniff     bool     // sniff=false
	// Transfer are the transfer modes of transfer=, a subset of
	// TransferModes in its order; nil when absent.
	Transfer []string
	// Form is the host's object the file arrives as (form=), one of Forms;
	// empty when absent, for a data: URI. A tag with a form has no
	// Transfer and no Filename.
	Form string
}

// Keys are the tag's keys, sorted as the error messages list them.
var Keys = []string{"accept", "filename", "form", "maxFiles", "maxSize", "minFiles", "sniff", "transfer"}

// TransferModes are the transfer modes of SEP-2631 a transfer= value may
// list, in the order the schema's transferModes lists them: "inline", a
// data: URI in the arguments, and "upload", a file URI the client got from
// files/authorizeUpload.
var TransferModes = []string{"inline", "upload"}

// The forms a form= value may name: the objects hosts send a file as, in
// place of a data: URI.
const (
	// FormFileData is Odeus's FileData object, for a property whose schema
	// has "format": "file": {fileName, mimeType, base64, size?, lastModified?}.
	FormFileData = "filedata"
	// FormOpenAI is the object ChatGPT sends for a field the tool's
	// _meta["openai/fileParams"] names: {download_url, file_id, mime_type?,
	// file_name?}. The server fetches download_url.
	FormOpenAI = "openai"
)

// Forms are the values of form=, sorted.
var Forms = []string{FormFileData, FormOpenAI}

// TopLevelTypes are the media top-level types an accept entry may name: the
// ones registered with IANA.
var TopLevelTypes = []string{
	"application", "audio", "example", "font", "haptics", "image",
	"message", "model", "multipart", "text", "video",
}

var units = []struct {
	name string
	mult int64
}{
	{"B", 1},
	{"KB", 1000},
	{"MB", 1000 * 1000},
	{"GB", 1000 * 1000 * 1000},
	{"KiB", 1 << 10},
	{"MiB", 1 << 20},
	{"GiB", 1 << 30},
}

const (
	wantItem     = "want key=value items separated by commas"
	wantAccept   = "want type/subtype, type/* or .ext"
	wantMaxSize  = "want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB"
	wantMaxFiles = "want a positive integer"
	wantMinFiles = "want an integer, 0 or more"
	wantFilename = "want the json name of a string field"
	wantSniff    = "want true or false"
	wantTransfer = "want inline, upload, or inline|upload"
	wantForm     = "want filedata or openai"
)

// wantValue is what each key's value must be.
var wantValue = map[string]string{
	"accept":   wantAccept,
	"filename": wantFilename,
	"form":     wantForm,
	"maxFiles": wantMaxFiles,
	"minFiles": wantMinFiles,
	"maxSize":  wantMaxSize,
	"sniff":    wantSniff,
	"transfer": wantTransfer,
}

// Parse parses the value of an mcpfile struct tag. Its error holds one
// error for each bad item, in the tag's order (errors.Join; see Errors),
// each one lowercase line without the position, which the caller adds.
func Parse(s string) (Tag, error) {
	var t Tag
	if s == "" {
		return t, nil
	}
	seen := map[string]bool{}
	var errs []error
	for item := range strings.SplitSeq(s, ",") {
		if item == "" {
			errs = append(errs, fmt.Errorf("empty item in %q (%s)", s, wantItem))
			continue
		}
		key, val, ok := strings.Cut(item, "=")
		if strings.ContainsAny(item, " \t\r\n") {
			if want, known := wantValue[key]; known && ok {
				errs = append(errs, fmt.Errorf("space in %s value %q (%s; no spaces)", key, val, want))
				continue
			}
			errs = append(errs, fmt.Errorf("space in item %q (%s, no spaces)", item, wantItem))
			continue
		}
		if !ok {
			if seen["transfer"] && slices.Contains(TransferModes, item) {
				errs = append(errs, fmt.Errorf("item %q has no value (%s; transfer modes are separated by |, as in transfer=inline|upload)", item, wantItem))
				continue
			}
			errs = append(errs, fmt.Errorf("item %q has no value (%s)", item, wantItem))
			continue
		}
		if !slices.Contains(Keys, key) {
			errs = append(errs, fmt.Errorf("unknown key %q (want %s)", key, strings.Join(Keys, ", ")))
			continue
		}
		if seen[key] && key != "accept" {
			errs = append(errs, fmt.Errorf("duplicate key %q", key))
			continue
		}
		seen[key] = true
		if val == "" {
			errs = append(errs, fmt.Errorf("empty value for key %q", key))
			continue
		}
		var err error
		switch key {
		case "accept":
			err = t.parseAccept(val)
		case "maxSize":
			t.MaxSize, err = parseMaxSize(val)
		case "maxFiles":
			t.MaxFiles, err = parseMaxFiles(val)
		case "minFiles":
			t.MinFiles, err = parseMinFiles(val)
			t.HasMinFiles = true
		case "filename":
			err = checkJSONName(val)
			t.Filename = val
		case "sniff":
			switch val {
			case "true":
				t.NoSniff = false
			case "false":
				t.NoSniff = true
			default:
				err = fmt.Errorf("bad sniff %q (%s)", val, wantSniff)
			}
		case "transfer":
			t.Transfer, err = parseTransfer(val)
		case "form":
			if !slices.Contains(Forms, val) {
				err = fmt.Errorf("bad form %q (%s)", val, wantForm)
			}
			t.Form = val
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		if err := t.checkForm(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		// An empty item, or a space, said once: its message names the whole tag.
		errs = slices.CompactFunc(errs, func(a, b error) bool { return a.Error() == b.Error() })
		return Tag{}, errors.Join(errs...)
	}
	return t, nil
}

// Errors returns the errors of the items of a tag that err, from Parse,
// holds: one for each bad item.
func Errors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// checkForm refuses the keys a form does not go with, whatever their order
// in the tag: a form is its own transfer, and its object carries the file's
// name.
func (t Tag) checkForm() error {
	switch {
	case t.Form == "":
	case len(t.Transfer) > 0:
		return fmt.Errorf("form=%s with transfer=%s: a form is its own transfer, the host sends the file as an object (leave transfer out, or form out for a data: URI or an upload)",
			t.Form, strings.Join(t.Transfer, "|"))
	case t.Filename != "":
		member := "fileName"
		if t.Form == FormOpenAI {
			member = "file_name"
		}
		return fmt.Errorf("form=%s with filename=%s: the form's object carries the file's name (%s), which becomes File.Name (leave filename out)",
			t.Form, t.Filename, member)
	}
	return nil
}

// String returns the tag in canonical form: keys in a fixed order (first
// those of the x-mcp-file keyword, in its order), accept once, maxSize in
// bytes, transfer modes in the order of TransferModes, then form (which
// x-mcpfile-form carries in place of x-mcp-file). Parse(t.String()) returns
// t for a parsed t.
func (t Tag) String() string {
	var items []string
	if len(t.Accept) > 0 {
		items = append(items, "accept="+strings.Join(t.Accept, "|"))
	}
	if t.MaxSize > 0 {
		items = append(items, "maxSize="+strconv.FormatInt(t.MaxSize, 10))
	}
	if len(t.Transfer) > 0 {
		items = append(items, "transfer="+strings.Join(t.Transfer, "|"))
	}
	if t.Form != "" {
		items = append(items, "form="+t.Form)
	}
	if t.MaxFiles > 0 {
		items = append(items, "maxFiles="+strconv.Itoa(t.MaxFiles))
	}
	if t.HasMinFiles {
		items = append(items, "minFiles="+strconv.Itoa(t.MinFiles))
	}
	if t.Filename != "" {
		items = append(items, "filename="+t.Filename)
	}
	if t.NoSniff {
		items = append(items, "sniff=false")
	}
	return strings.Join(items, ",")
}

func (t *Tag) parseAccept(val string) error {
	for e := range strings.SplitSeq(val, "|") {
		if e == "" {
			return fmt.Errorf("empty accept entry in %q (%s)", val, wantAccept)
		}
		norm, err := acceptEntry(e)
		if err != nil {
			return err
		}
		if slices.Contains(t.Accept, norm) {
			return fmt.Errorf("duplicate accept entry %q", e)
		}
		t.Accept = append(t.Accept, norm)
	}
	return nil
}

// parseTransfer parses a transfer value: inline, upload, or both separated
// by |, in either order. It returns the modes in the order of TransferModes.
func parseTransfer(val string) ([]string, error) {
	// in names the whole value in messages when it has more than one mode.
	in := ""
	if strings.Contains(val, "|") {
		in = fmt.Sprintf(" in %q", val)
	}
	var seen []string
	for m := range strings.SplitSeq(val, "|") {
		switch {
		case m == "":
			return nil, fmt.Errorf("empty transfer mode in %q (%s)", val, wantTransfer)
		case !slices.Contains(TransferModes, m):
			return nil, fmt.Errorf("bad transfer mode %q%s (%s)", m, in, wantTransfer)
		case slices.Contains(seen, m):
			return nil, fmt.Errorf("duplicate transfer mode %q%s (%s)", m, in, wantTransfer)
		}
		seen = append(seen, m)
	}
	var modes []string
	for _, m := range TransferModes {
		if slices.Contains(seen, m) {
			modes = append(modes, m)
		}
	}
	return modes, nil
}

// acceptEntry validates one accept entry and returns it lower-cased.
func acceptEntry(e string) (string, error) {
	l := strings.ToLower(e)
	if ext, ok := strings.CutPrefix(l, "."); ok {
		if !restrictedName(ext) || strings.HasSuffix(ext, ".") {
			return "", fmt.Errorf("bad accept extension %q (want a dot and letters, digits or !#$&-^_.+)", e)
		}
		return l, nil
	}
	typ, sub, ok := strings.Cut(l, "/")
	if !ok {
		return "", fmt.Errorf("bad accept entry %q (%s)", e, wantAccept)
	}
	if typ == "*" {
		if sub == "*" {
			return "", fmt.Errorf("accept entry %q accepts everything (leave accept out instead)", e)
		}
		return "", fmt.Errorf("bad accept entry %q: the type cannot be a wildcard (%s)", e, wantAccept)
	}
	if !slices.Contains(TopLevelTypes, typ) {
		if !restrictedName(typ) {
			return "", fmt.Errorf("bad media type %q (%s)", e, wantAccept)
		}
		return "", fmt.Errorf("unknown top-level type %q in %q (want %s)", typ, e, strings.Join(TopLevelTypes, ", "))
	}
	if sub != "*" && !restrictedName(sub) {
		return "", fmt.Errorf("bad media type %q (%s; subtype of letters, digits and !#$&-^_.+)", e, wantAccept)
	}
	return l, nil
}

// restrictedName reports whether s is an RFC 6838 restricted-name:
// 1 to 127 characters, the first a letter or digit, the rest letters, digits
// or one of !#$&-^_.+
func restrictedName(s string) bool {
	if len(s) == 0 || len(s) > 127 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && strings.IndexByte("!#$&-^_.+", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// parseMaxSize parses a maxSize value: digits, then an optional unit, the
// trailing letters. A number that is not a plain positive integer (1.5MiB,
// -1, 0x10) is reported as a bad number, not as a bad unit.
func parseMaxSize(val string) (int64, error) {
	end := len(val)
	for end > 0 && isLetter(val[end-1]) {
		end--
	}
	num, unit := val[:end], val[end:]
	if strings.IndexFunc(num, func(r rune) bool { return r < 0x80 && isLetter(byte(r)) }) >= 0 {
		unit, num = "", val // letters inside: no number-and-unit split makes sense
	}
	mult := int64(0)
	if unit == "" {
		mult = 1
	}
	var names []string
	for _, u := range units {
		names = append(names, u.name)
		if u.name == unit {
			mult = u.mult
		}
	}
	// what names the number in messages: the whole value when it has no unit.
	what := fmt.Sprintf("maxSize %q", val)
	if unit != "" {
		what = fmt.Sprintf("maxSize number %q in %q", num, val)
	}
	switch {
	case num == "":
		return 0, fmt.Errorf("bad maxSize %q (%s)", val, wantMaxSize)
	case !isDigits(num):
		if d, ok := strings.CutPrefix(num, "-"); ok && isDecimal(d) {
			return 0, fmt.Errorf("maxSize %q is not positive (%s)", val, wantMaxSize)
		}
		if isDecimal(num) {
			if mult != 0 {
				if exact := exactSize(num, unit, mult); exact != "" {
					return 0, fmt.Errorf("bad %s: not an integer (%s is %s; %s)", what, val, exact, wantMaxSize)
				}
			}
			return 0, fmt.Errorf("bad %s: not an integer (%s)", what, wantMaxSize)
		}
		return 0, fmt.Errorf("bad %s (%s)", what, wantMaxSize)
	case mult == 0:
		return 0, fmt.Errorf("bad maxSize unit %q in %q (want %s)", unit, val, strings.Join(names, ", "))
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("bad maxSize %q (%s)", val, wantMaxSize)
	}
	if err != nil || n > MaxSizeLimit/mult {
		return 0, fmt.Errorf("maxSize %q is too large (the limit is %d bytes)", val, int64(MaxSizeLimit))
	}
	if n == 0 {
		return 0, fmt.Errorf("maxSize %q is not positive (%s)", val, wantMaxSize)
	}
	return n * mult, nil
}

// exactSize returns the decimal number num of unit (mult bytes each) as a
// whole number of the largest unit of the same kind that holds it exactly,
// "1536KiB" for 1.5MiB, or "" when it is no whole number of bytes or not
// positive.
func exactSize(num, unit string, mult int64) string {
	r, ok := new(big.Rat).SetString(num)
	if !ok || r.Sign() <= 0 {
		return ""
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	if !r.IsInt() || r.Num().Cmp(big.NewInt(MaxSizeLimit)) > 0 {
		return ""
	}
	n := r.Num().Int64()
	binary := strings.HasSuffix(unit, "iB")
	best := units[0]
	for _, u := range units {
		if (u.mult == 1 || strings.HasSuffix(u.name, "iB") == binary) && n%u.mult == 0 && u.mult > best.mult {
			best = u
		}
	}
	return strconv.FormatInt(n/best.mult, 10) + best.name
}

// parseMinFiles parses a minFiles value, an integer of 0 or more.
func parseMinFiles(val string) (int, error) {
	if n, err := strconv.ParseInt(val, 10, 64); err == nil && isDigits(val) && n == 0 {
		return 0, nil
	}
	n, err := parseMaxFiles(val)
	if err != nil {
		return 0, errors.New(strings.NewReplacer("maxFiles", "minFiles", wantMaxFiles, wantMinFiles, "is not positive", "is negative").Replace(err.Error()))
	}
	return n, nil
}

// parseMaxFiles parses a maxFiles value, a positive integer.
func parseMaxFiles(val string) (int, error) {
	if !isDigits(val) {
		switch d, neg := strings.CutPrefix(val, "-"); {
		case neg && isDecimal(d):
			return 0, fmt.Errorf("maxFiles %q is not positive (%s)", val, wantMaxFiles)
		case isDecimal(val):
			return 0, fmt.Errorf("bad maxFiles %q: not an integer (%s)", val, wantMaxFiles)
		}
		return 0, fmt.Errorf("bad maxFiles %q (%s)", val, wantMaxFiles)
	}
	n, err := strconv.ParseInt(val, 10, 64)
	if err != nil || n > MaxFilesLimit {
		return 0, fmt.Errorf("maxFiles %q is too large (the limit is %d)", val, MaxFilesLimit)
	}
	if n == 0 {
		return 0, fmt.Errorf("maxFiles %q is not positive (%s)", val, wantMaxFiles)
	}
	return int(n), nil
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isDecimal reports whether s is a decimal number without a sign: digits
// with at most one point and at least one digit, such as 1.5, .5 or 2.
func isDecimal(s string) bool {
	i, f, _ := strings.Cut(s, ".")
	return (i != "" || f != "") && (i == "" || isDigits(i)) && (f == "" || isDigits(f))
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// checkJSONName accepts the names encoding/json accepts in a json tag.
func checkJSONName(s string) error {
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case unicode.IsLetter(c), unicode.IsDigit(c):
		default:
			return fmt.Errorf("bad filename %q (%s)", s, wantFilename)
		}
	}
	return nil
}
