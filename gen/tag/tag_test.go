package tag

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Tag
	}{
		{"", Tag{}},
		{"accept=image/png", Tag{Accept: []string{"image/png"}}},
		{"accept=image/png|image/jpeg", Tag{Accept: []string{"image/png", "image/jpeg"}}},
		{"accept=Image/PNG|.PDF", Tag{Accept: []string{"image/png", ".pdf"}}},
		{"accept=image/*|.tar.gz|application/vnd.openxmlformats-officedocument.wordprocessingml.document",
			Tag{Accept: []string{"image/*", ".tar.gz", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}}},
		{"accept=image/svg+xml|text/x-c++src", Tag{Accept: []string{"image/svg+xml", "text/x-c++src"}}},
		{"accept=image/png,accept=application/pdf", Tag{Accept: []string{"image/png", "application/pdf"}}},
		{"maxSize=1", Tag{MaxSize: 1}},
		{"maxSize=10B", Tag{MaxSize: 10}},
		{"maxSize=5KB", Tag{MaxSize: 5000}},
		{"maxSize=5MB", Tag{MaxSize: 5000000}},
		{"maxSize=2GB", Tag{MaxSize: 2000000000}},
		{"maxSize=512KiB", Tag{MaxSize: 512 << 10}},
		{"maxSize=5MiB", Tag{MaxSize: 5242880}},
		{"maxSize=3GiB", Tag{MaxSize: 3 << 30}},
		{"maxSize=9007199254740991", Tag{MaxSize: MaxSizeLimit}},
		{"maxFiles=5", Tag{MaxFiles: 5}},
		{"maxFiles=2147483647", Tag{MaxFiles: MaxFilesLimit}},
		{"minFiles=0", Tag{HasMinFiles: true}},
		{"minFiles=00", Tag{HasMinFiles: true}},
		{"minFiles=2,maxFiles=5", Tag{MinFiles: 2, HasMinFiles: true, MaxFiles: 5}},
		{"filename=cover_name", Tag{Filename: "cover_name"}},
		{"sniff=false", Tag{NoSniff: true}},
		{"sniff=true", Tag{}},
		{"transfer=inline", Tag{Transfer: []string{"inline"}}},
		{"transfer=upload", Tag{Transfer: []string{"upload"}}},
		{"transfer=inline|upload", Tag{Transfer: []string{"inline", "upload"}}},
		{"transfer=upload|inline", Tag{Transfer: []string{"inline", "upload"}}},
		{"transfer=upload,filename=name", Tag{Transfer: []string{"upload"}, Filename: "name"}},
		{"form=filedata", Tag{Form: "filedata"}},
		{"form=openai", Tag{Form: "openai"}},
		{"accept=application/pdf,maxSize=5MiB,form=filedata,maxFiles=2,minFiles=1,sniff=false",
			Tag{Accept: []string{"application/pdf"}, MaxSize: 5 << 20, Form: "filedata", MaxFiles: 2, MinFiles: 1, HasMinFiles: true, NoSniff: true}},
		{"accept=application/pdf|text/plain,maxSize=10MiB,maxFiles=5,filename=names,sniff=false",
			Tag{Accept: []string{"application/pdf", "text/plain"}, MaxSize: 10 << 20, MaxFiles: 5, Filename: "names", NoSniff: true}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseTagErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"maxsize=5MB", `unknown key "maxsize" (want accept, filename, form, maxFiles, maxSize, minFiles, sniff, transfer)`},
		{"Accept=image/png", `unknown key "Accept" (want accept, filename, form, maxFiles, maxSize, minFiles, sniff, transfer)`},
		{"accept", `item "accept" has no value (want key=value items separated by commas)`},
		{"accept=", `empty value for key "accept"`},
		{"accept=image/png,", `empty item in "accept=image/png," (want key=value items separated by commas)`},
		{",accept=image/png", `empty item in ",accept=image/png" (want key=value items separated by commas)`},
		{"accept=image/png, maxSize=1", `space in item " maxSize=1" (want key=value items separated by commas, no spaces)`},
		{"maxSize=1,maxSize=2", `duplicate key "maxSize"`},
		{"maxFiles=1,maxFiles=1", `duplicate key "maxFiles"`},
		{"filename=a,filename=b", `duplicate key "filename"`},
		{"sniff=false,sniff=false", `duplicate key "sniff"`},
		{"accept=image/png||image/gif", `empty accept entry in "image/png||image/gif" (want type/subtype, type/* or .ext)`},
		{"accept=image/png|", `empty accept entry in "image/png|" (want type/subtype, type/* or .ext)`},
		{"accept=image/png,accept=IMAGE/PNG", `duplicate accept entry "IMAGE/PNG"`},
		{"accept=*/*", `accept entry "*/*" accepts everything (leave accept out instead)`},
		{"accept=*/png", `bad accept entry "*/png": the type cannot be a wildcard (want type/subtype, type/* or .ext)`},
		{"accept=png", `bad accept entry "png" (want type/subtype, type/* or .ext)`},
		{"accept=image/", `bad media type "image/" (want type/subtype, type/* or .ext; subtype of letters, digits and !#$&-^_.+)`},
		{"accept=image/png;q=1", `bad media type "image/png;q=1" (want type/subtype, type/* or .ext; subtype of letters, digits and !#$&-^_.+)`},
		{"accept=image/png/x", `bad media type "image/png/x" (want type/subtype, type/* or .ext; subtype of letters, digits and !#$&-^_.+)`},
		{"accept=image/-png", `bad media type "image/-png" (want type/subtype, type/* or .ext; subtype of letters, digits and !#$&-^_.+)`},
		{"accept=image/p*", `bad media type "image/p*" (want type/subtype, type/* or .ext; subtype of letters, digits and !#$&-^_.+)`},
		{"accept=imag/png", `unknown top-level type "imag" in "imag/png" (want application, audio, example, font, haptics, image, message, model, multipart, text, video)`},
		{"accept=/png", `bad media type "/png" (want type/subtype, type/* or .ext)`},
		{"accept=.", `bad accept extension "." (want a dot and letters, digits or !#$&-^_.+)`},
		{"accept=.pdf.", `bad accept extension ".pdf." (want a dot and letters, digits or !#$&-^_.+)`},
		{"accept=.p/f", `bad accept extension ".p/f" (want a dot and letters, digits or !#$&-^_.+)`},
		{"maxSize=0", `maxSize "0" is not positive (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=0MiB", `maxSize "0MiB" is not positive (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=-1", `maxSize "-1" is not positive (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=-5MiB", `maxSize "-5MiB" is not positive (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=+1", `bad maxSize "+1" (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=MiB", `bad maxSize "MiB" (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=5mb", `bad maxSize unit "mb" in "5mb" (want B, KB, MB, GB, KiB, MiB, GiB)`},
		{"maxSize=5MIB", `bad maxSize unit "MIB" in "5MIB" (want B, KB, MB, GB, KiB, MiB, GiB)`},
		{"maxSize=5TB", `bad maxSize unit "TB" in "5TB" (want B, KB, MB, GB, KiB, MiB, GiB)`},
		{"maxSize=1.5MB", `bad maxSize number "1.5" in "1.5MB": not an integer (1.5MB is 1500KB; want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=1.5MiB", `bad maxSize number "1.5" in "1.5MiB": not an integer (1.5MiB is 1536KiB; want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=.5GiB", `bad maxSize number ".5" in ".5GiB": not an integer (.5GiB is 512MiB; want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=1.0KiB", `bad maxSize number "1.0" in "1.0KiB": not an integer (1.0KiB is 1KiB; want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=1.3MiB", `bad maxSize number "1.3" in "1.3MiB": not an integer (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=1.5mb", `bad maxSize number "1.5" in "1.5mb": not an integer (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=1.5", `bad maxSize "1.5": not an integer (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=0.5B", `bad maxSize number "0.5" in "0.5B": not an integer (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=0x10", `bad maxSize "0x10" (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=0x1A", `bad maxSize "0x1A" (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=1e6", `bad maxSize "1e6" (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=1_000", `bad maxSize "1_000" (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=5MiB5", `bad maxSize "5MiB5" (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=.", `bad maxSize "." (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize=５", `bad maxSize "５" (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`},
		{"maxSize= 5MiB", `space in maxSize value " 5MiB" (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB; no spaces)`},
		{"maxSize=5 MiB", `space in maxSize value "5 MiB" (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB; no spaces)`},
		{"maxFiles=1 0", `space in maxFiles value "1 0" (want a positive integer; no spaces)`},
		{"accept=image/png| image/gif", `space in accept value "image/png| image/gif" (want type/subtype, type/* or .ext; no spaces)`},
		{"maxSize =5MiB", `space in item "maxSize =5MiB" (want key=value items separated by commas, no spaces)`},
		{"maxSize=9007199254740992", `maxSize "9007199254740992" is too large (the limit is 9007199254740991 bytes)`},
		{"maxSize=8388608GiB", `maxSize "8388608GiB" is too large (the limit is 9007199254740991 bytes)`},
		{"maxSize=99999999999999999999999", `maxSize "99999999999999999999999" is too large (the limit is 9007199254740991 bytes)`},
		{"maxFiles=0", `maxFiles "0" is not positive (want a positive integer)`},
		{"minFiles=-1", `minFiles "-1" is negative (want an integer, 0 or more)`},
		{"minFiles=1.5", `bad minFiles "1.5": not an integer (want an integer, 0 or more)`},
		{"minFiles=x", `bad minFiles "x" (want an integer, 0 or more)`},
		{"minFiles=1,minFiles=2", `duplicate key "minFiles"`},
		{"minFiles=2147483648", `minFiles "2147483648" is too large (the limit is 2147483647)`},
		{"maxFiles=-2", `maxFiles "-2" is not positive (want a positive integer)`},
		{"maxFiles=1.5", `bad maxFiles "1.5": not an integer (want a positive integer)`},
		{"maxFiles=0x10", `bad maxFiles "0x10" (want a positive integer)`},
		{"maxFiles=+2", `bad maxFiles "+2" (want a positive integer)`},
		{"maxFiles=two", `bad maxFiles "two" (want a positive integer)`},
		{"maxFiles=2147483648", `maxFiles "2147483648" is too large (the limit is 2147483647)`},
		{"maxFiles=99999999999999999999", `maxFiles "99999999999999999999" is too large (the limit is 2147483647)`},
		{"sniff=no", `bad sniff "no" (want true or false)`},
		{"sniff=False", `bad sniff "False" (want true or false)`},
		{`filename=a"b`, `bad filename "a\"b" (want the json name of a string field)`},
		{"transferModes=upload", `unknown key "transferModes" (want accept, filename, form, maxFiles, maxSize, minFiles, sniff, transfer)`},
		{"transfer=", `empty value for key "transfer"`},
		{"transfer=inline,transfer=upload", `duplicate key "transfer"`},
		{"transfer=Upload|inline", `bad transfer mode "Upload" in "Upload|inline" (want inline, upload, or inline|upload)`},
		{"transfer=INLINE", `bad transfer mode "INLINE" (want inline, upload, or inline|upload)`},
		{"transfer=download", `bad transfer mode "download" (want inline, upload, or inline|upload)`},
		{"transfer=any", `bad transfer mode "any" (want inline, upload, or inline|upload)`},
		{"transfer=inline/upload", `bad transfer mode "inline/upload" (want inline, upload, or inline|upload)`},
		{"transfer=inline;upload", `bad transfer mode "inline;upload" (want inline, upload, or inline|upload)`},
		{"transfer=inline|upload|https", `bad transfer mode "https" in "inline|upload|https" (want inline, upload, or inline|upload)`},
		{"transfer=inline|inline", `duplicate transfer mode "inline" in "inline|inline" (want inline, upload, or inline|upload)`},
		{"transfer=upload|inline|upload", `duplicate transfer mode "upload" in "upload|inline|upload" (want inline, upload, or inline|upload)`},
		{"transfer=inline||upload", `empty transfer mode in "inline||upload" (want inline, upload, or inline|upload)`},
		{"transfer=|upload", `empty transfer mode in "|upload" (want inline, upload, or inline|upload)`},
		{"transfer=upload|", `empty transfer mode in "upload|" (want inline, upload, or inline|upload)`},
		{"transfer=|", `empty transfer mode in "|" (want inline, upload, or inline|upload)`},
		{"transfer=inline,upload", `item "upload" has no value (want key=value items separated by commas; transfer modes are separated by |, as in transfer=inline|upload)`},
		{"transfer=upload,maxSize=1,inline", `item "inline" has no value (want key=value items separated by commas; transfer modes are separated by |, as in transfer=inline|upload)`},
		{"upload,transfer=inline", `item "upload" has no value (want key=value items separated by commas)`},
		{"transfer=inline| upload", `space in transfer value "inline| upload" (want inline, upload, or inline|upload; no spaces)`},
		{"form=", `empty value for key "form"`},
		{"form=FileData", `bad form "FileData" (want filedata or openai)`},
		{"form=OpenAI", `bad form "OpenAI" (want filedata or openai)`},
		{"form=file", `bad form "file" (want filedata or openai)`},
		{"form=filedata|openai", `bad form "filedata|openai" (want filedata or openai)`},
		{"form=openai,form=openai", `duplicate key "form"`},
		{"form=filedata ", `space in form value "filedata " (want filedata or openai; no spaces)`},
		{"form=filedata,transfer=inline", `form=filedata with transfer=inline: a form is its own transfer, the host sends the file as an object (leave transfer out, or form out for a data: URI or an upload)`},
		{"transfer=upload|inline,form=openai", `form=openai with transfer=inline|upload: a form is its own transfer, the host sends the file as an object (leave transfer out, or form out for a data: URI or an upload)`},
		{"filename=name,form=filedata", `form=filedata with filename=name: the form's object carries the file's name (fileName), which becomes File.Name (leave filename out)`},
		{"form=openai,filename=name", `form=openai with filename=name: the form's object carries the file's name (file_name), which becomes File.Name (leave filename out)`},
		{"form=openai,transfer=Upload", `bad transfer mode "Upload" (want inline, upload, or inline|upload)`},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q) = %v, %v, want error %s", tt.in, got, err, tt.want)
		}
	}
}

func TestStringRoundTrip(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"accept=image/PNG,accept=.pdf,maxSize=5MiB,maxFiles=3,minFiles=1,filename=n,sniff=false",
			"accept=image/png|.pdf,maxSize=5242880,maxFiles=3,minFiles=1,filename=n,sniff=false"},
		{"sniff=false,transfer=upload|inline,maxSize=1KiB,accept=text/plain",
			"accept=text/plain,maxSize=1024,transfer=inline|upload,sniff=false"},
		{"transfer=upload", "transfer=upload"},
		{"transfer=inline", "transfer=inline"},
		{"sniff=false,form=filedata,minFiles=0,maxSize=1KiB", "maxSize=1024,form=filedata,minFiles=0,sniff=false"},
		{"form=openai", "form=openai"},
	} {
		tg, err := Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := tg.String(); got != tt.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "accept=image/png|image/jpeg,maxSize=5MiB", "accept=.pdf,accept=text/*,maxFiles=3",
		"filename=name,sniff=false", "maxSize=9007199254740991B", "maxSize=1GiB", "accept=*/*",
		"maxsize=5", "accept=image/png,,", "sniff=true", "transfer=upload|inline", "transfer=inline,filename=n",
		"transfer=Upload", "transfer=inline|inline", "form=filedata,maxFiles=2", "form=openai,accept=image/*",
		"form=openai,transfer=inline", "filename=n,form=filedata", "form=FileData", "0,",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := Parse(s)
		if err != nil {
			// One line for each bad item, without a trailing period.
			for _, e := range Errors(err) {
				msg := e.Error()
				if msg == "" || strings.ContainsAny(msg, "\n") || strings.HasSuffix(msg, ".") {
					t.Errorf("Parse(%q) error %q: want one line without a trailing period", s, msg)
				}
			}
			if !reflect.DeepEqual(tg, Tag{}) {
				t.Errorf("Parse(%q) = %v with error %v, want the zero Tag", s, tg, err)
			}
			return
		}
		if tg.MaxSize < 0 || tg.MaxSize > MaxSizeLimit {
			t.Errorf("Parse(%q).MaxSize = %d, out of range", s, tg.MaxSize)
		}
		if tg.MaxFiles < 0 || tg.MaxFiles > MaxFilesLimit {
			t.Errorf("Parse(%q).MaxFiles = %d, out of range", s, tg.MaxFiles)
		}
		for _, a := range tg.Accept {
			if a != strings.ToLower(a) || a == "*/*" || strings.ContainsAny(a, ",| ;") {
				t.Errorf("Parse(%q).Accept has bad entry %q", s, a)
			}
			if _, err := acceptEntry(a); err != nil {
				t.Errorf("Parse(%q).Accept entry %q does not parse again: %v", s, a, err)
			}
		}
		if len(tg.Transfer) > 0 && !slices.Equal(tg.Transfer, TransferModes) &&
			!(len(tg.Transfer) == 1 && slices.Contains(TransferModes, tg.Transfer[0])) {
			t.Errorf("Parse(%q).Transfer = %q, want inline, upload or both in that order", s, tg.Transfer)
		}
		if tg.Form != "" && (!slices.Contains(Forms, tg.Form) || tg.Transfer != nil || tg.Filename != "") {
			t.Errorf("Parse(%q) = %v: want form filedata or openai, without transfer and filename", s, tg)
		}
		// Round trip through the canonical form.
		back, err := Parse(tg.String())
		if err != nil || !reflect.DeepEqual(back, tg) {
			t.Errorf("Parse(%q) = %v, but Parse(%q) = %v, %v", s, tg, tg.String(), back, err)
		}
	})
}

func TestStructKeys(t *testing.T) {
	tests := []struct {
		in   string
		keys []string
		err  string
	}{
		{``, nil, ""},
		{`json:"a"`, []string{"json"}, ""},
		{`json:"a,omitempty" mcpfile:"accept=image/png"`, []string{"json", "mcpfile"}, ""},
		{`  json:"a"   mcpfile:""  `, []string{"json", "mcpfile"}, ""},
		{`json:"a"mcpfile:""`, []string{"json", "mcpfile"}, ""}, // Lookup reads pairs without a space
		{`json:"a\"b"`, []string{"json"}, ""},
		{`mcpfile:accept=image/png`, []string{"mcpfile"}, `the value of "mcpfile" is not in double quotes (want mcpfile:"…")`},
		{`json:"a" mcpfile:'x'`, []string{"json", "mcpfile"}, `the value of "mcpfile" is not in double quotes (want mcpfile:"…")`},
		{`json:"a" mcpfile`, []string{"json", "mcpfile"}, `key "mcpfile" has no value (want mcpfile:"…")`},
		{`mcpfile="x"`, []string{"mcpfile="}, `key "mcpfile=" has no value (want mcpfile=:"…")`},
		{`mcpfile :"x"`, []string{"mcpfile"}, `key "mcpfile" has no value (want mcpfile:"…")`},
		{`mcpfile:"accept=image/png`, []string{"mcpfile"}, `the value of "mcpfile" has no closing quote`},
		{`json:"a\q"`, []string{"json"}, `the value of "json" is not a valid Go string literal`},
		{`:"x"`, nil, `want a key at ":\"x\""`},
		{`json:"a" "b"`, []string{"json"}, `want a key at "\"b\""`},
	}
	for _, tt := range tests {
		keys, err := StructKeys(tt.in)
		var msg string
		if err != nil {
			msg = err.Error()
		}
		if !reflect.DeepEqual(keys, tt.keys) || msg != tt.err {
			t.Errorf("StructKeys(%q) = %q, %q, want %q, %q", tt.in, keys, msg, tt.keys, tt.err)
		}
		// Where StructKeys finds no fault, Lookup reads every key.
		if err == nil {
			for _, k := range keys {
				if _, ok := reflect.StructTag(tt.in).Lookup(k); !ok {
					t.Errorf("StructKeys(%q) has key %q, which Lookup does not find", tt.in, k)
				}
			}
		}
	}
}

func TestMisspelled(t *testing.T) {
	for _, tt := range []struct {
		key  string
		want bool
	}{
		{"mcpfile", false},
		{"mcpFile", true},
		{"MCPFILE", true},
		{"McpFile", true},
		{"mcpfiel", true},
		{"mcp_file", true},
		{"mcp-file", true},
		{"mcpfil", true},
		{"mcpfiles", true},
		{"mpcfile", true},
		{"mcfile", true},
		{"MCP_FILE", true},
		{"json", false},
		{"jsonschema", false},
		{"profile", false},
		{"file", false},
		{"mcp", false},
		{"mcptool", false},
		{"validate", false},
	} {
		if got := Misspelled(tt.key); got != tt.want {
			t.Errorf("Misspelled(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

func FuzzStructKeys(f *testing.F) {
	for _, s := range []string{``, `json:"a" mcpfile:"accept=image/png"`, `mcpfile:accept`, `a:"\x"`, `a:"b"c:"d"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		keys, err := StructKeys(s)
		if err == nil {
			for _, k := range keys {
				if _, ok := reflect.StructTag(s).Lookup(k); !ok {
					t.Errorf("StructKeys(%q) = %q without error, but Lookup(%q) finds nothing", s, keys, k)
				}
			}
		} else if msg := err.Error(); strings.Contains(msg, "\n") || strings.HasSuffix(msg, ".") {
			t.Errorf("StructKeys(%q) error %q: want one line without a trailing period", s, msg)
		}
	})
}

// TestParseCollectsErrors: every bad item of a tag is reported, in the
// tag's order, so that one run of the generator shows them all.
func TestParseCollectsErrors(t *testing.T) {
	_, err := Parse("accept=imagepng,maxSize=5MB5,sniff=false,bogus=1,maxSize=1")
	var got []string
	for _, e := range Errors(err) {
		got = append(got, e.Error())
	}
	want := []string{
		`bad accept entry "imagepng" (want type/subtype, type/* or .ext)`,
		`bad maxSize "5MB5" (want a positive integer with an optional unit B, KB, MB, GB, KiB, MiB or GiB, e.g. 5MiB)`,
		`unknown key "bogus" (want accept, filename, form, maxFiles, maxSize, minFiles, sniff, transfer)`,
		`duplicate key "maxSize"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Parse errors:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if errs := Errors(nil); errs != nil {
		t.Errorf("Errors(nil) = %v", errs)
	}
}
