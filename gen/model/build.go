package model

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
	"golang.org/x/tools/go/packages"

	"github.com/mcpfile/mcpfile/gen/internal/fields"
	"github.com/mcpfile/mcpfile/gen/internal/infer"
	"github.com/mcpfile/mcpfile/gen/internal/par"
	"github.com/mcpfile/mcpfile/gen/tag"
)

// RuntimePath is the import path of the runtime package whose File type
// file fields use.
const RuntimePath = "github.com/mcpfile/mcpfile/runtime"

// TagKey is the struct tag key the generator reads.
const TagKey = tag.Key

// Build validates the selected types of a loaded package and returns its
// model. With typeNames empty it selects every named struct type with at
// least one mcpfile-tagged field or a transfer.FileValue field (a tool's
// output), and, to report them, those with a struct
// tag key that looks like mcpfile misspelled or a malformed tag that
// mentions it, and those whose fields hold a runtime.File that no tagged
// type decodes; otherwise exactly the named types. It reports the struct
// types of the package that would inherit the methods generated for a
// selected type they embed, and fills in the package's build constraint.
// All problems are collected and returned as an ErrorList, sorted.
func Build(pkg *packages.Package, typeNames []string) (*Package, error) {
	if pkg.Types == nil || pkg.TypesInfo == nil || pkg.Fset == nil {
		return nil, fmt.Errorf("internal error: package %s was loaded without type information", pkg.PkgPath)
	}
	b := &builder{pkg: pkg, explicit: len(typeNames) > 0}
	b.readSyntax()
	p := &Package{Name: pkg.Name, Path: pkg.PkgPath, fieldDocs: b.fieldDocs}
	if len(pkg.GoFiles) > 0 {
		p.Dir = dirOf(pkg.GoFiles[0])
	}
	// Types are built in parallel, each by a builder of its own that
	// shares the package's read-only state and collects its own errors.
	objs := b.selectTypes(typeNames)
	built := make([]*Type, len(objs))
	errs := make([]ErrorList, len(objs))
	par.Each(len(objs), func(i int) error {
		tb := *b
		tb.errs = nil
		built[i] = tb.buildType(objs[i])
		errs[i] = tb.errs
		return nil
	})
	for i, t := range built {
		b.errs = append(b.errs, errs[i]...)
		if t != nil {
			p.Types = append(p.Types, t)
		}
	}
	slices.SortFunc(p.Types, func(a, b *Type) int { return strings.Compare(a.Name, b.Name) })
	b.checkEmbedders(objs, built)
	p.Constraint = b.constraint(p.Types)
	if err := b.errs.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

type builder struct {
	pkg       *packages.Package
	explicit  bool // types chosen with -type
	errs      ErrorList
	fieldDocs map[*types.Var]string
	typeDocs  map[*types.TypeName]string
}

func (b *builder) pos(p token.Pos) token.Position { return b.pkg.Fset.Position(p) }

func (b *builder) errorf(p token.Pos, format string, args ...any) {
	b.errs.Add(b.pos(p), format, args...)
}

// readSyntax collects the doc comments of the package's types and struct fields.
func (b *builder) readSyntax() {
	b.fieldDocs = map[*types.Var]string{}
	b.typeDocs = map[*types.TypeName]string{}
	for _, f := range b.pkg.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GenDecl:
				if n.Tok != token.TYPE {
					return true
				}
				for _, spec := range n.Specs {
					ts := spec.(*ast.TypeSpec)
					doc := ts.Doc
					if doc == nil && len(n.Specs) == 1 {
						doc = n.Doc
					}
					if obj, ok := b.pkg.TypesInfo.Defs[ts.Name].(*types.TypeName); ok && doc != nil {
						b.typeDocs[obj] = docText(doc)
					}
				}
			case *ast.StructType:
				for _, fd := range n.Fields.List {
					doc := fd.Doc
					if doc == nil {
						doc = fd.Comment
					}
					if doc == nil {
						continue
					}
					idents := fd.Names
					if len(idents) == 0 {
						if id := embeddedIdent(fd.Type); id != nil {
							idents = []*ast.Ident{id}
						}
					}
					for _, id := range idents {
						if v, ok := b.pkg.TypesInfo.Defs[id].(*types.Var); ok {
							b.fieldDocs[v] = docText(doc)
						}
					}
				}
			}
			return true
		})
	}
}

// embeddedIdent returns the identifier go/types records an embedded field's
// definition at: T in T, *T, p.T, T[X].
func embeddedIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.StarExpr:
			e = x.X
		case *ast.SelectorExpr:
			return x.Sel
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// docText turns a comment group into a description: directives dropped,
// the lines of each paragraph joined with spaces, paragraphs with a blank line.
func docText(g *ast.CommentGroup) string {
	var paras []string
	for p := range strings.SplitSeq(strings.TrimSpace(g.Text()), "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			paras = append(paras, p)
		}
	}
	return strings.Join(paras, "\n\n")
}

// selectTypes returns the type names to generate for, in name order.
func (b *builder) selectTypes(typeNames []string) []*types.TypeName {
	scope := b.pkg.Types.Scope()
	var out []*types.TypeName
	if !b.explicit {
		reach := &fileReach{memo: map[*types.Named]bool{}}
		for _, name := range scope.Names() {
			obj, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || obj.IsAlias() {
				continue
			}
			if st := fields.Struct(obj.Type()); st != nil && reach.wanted(st) {
				out = append(out, obj)
			}
		}
		return out
	}
	names := slices.Clone(typeNames)
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		obj := scope.Lookup(name)
		tn, ok := obj.(*types.TypeName)
		switch {
		case obj == nil:
			b.errs.Add(token.Position{Filename: b.anyFile()}, "type %q given with -type is not declared in package %s", name, b.pkg.Name)
		case !ok:
			b.errorf(obj.Pos(), "name %s given with -type is not a type", name)
		case tn.IsAlias():
			b.errorf(obj.Pos(), "type %s given with -type is an alias (name the aliased type instead)", name)
		case fields.Struct(tn.Type()) == nil:
			b.errorf(obj.Pos(), "type %s given with -type is not a struct type", name)
		default:
			out = append(out, tn)
		}
	}
	return out
}

// fileReach tells which struct types to select without -type: those with
// a field that has an mcpfile tag, a struct tag key that looks like a
// misspelling of it or a malformed struct tag that mentions it, those
// with a field, decoded by encoding/json, whose values hold a runtime.File
// that no type of the former kind on the way decodes, and tool outputs
// with a transfer.FileValue field (see returnsFiles). All of these are
// either generated for or reported, never passed over.
type fileReach struct {
	memo     map[*types.Named]bool // results known to be right
	visiting map[*types.Named]bool
}

// wanted reports whether struct type st is to be selected.
func (r *fileReach) wanted(st *types.Struct) bool {
	if tagged(st) || returnsFiles(st) {
		return true
	}
	r.visiting = map[*types.Named]bool{}
	return r.fields(st)
}

// TransferPath is the import path of the transfer package, whose
// FileValue is a file a tool returns (SEP-2631).
const TransferPath = RuntimePath + "/transfer"

// WirePath is the import path of the SEP-2631 wire types, where
// transfer.FileValue, an alias, is declared.
const WirePath = TransferPath + "/wire"

// returnsFiles reports whether st is a tool's output with files in it: a
// field of type transfer.FileValue, a pointer to one or a slice of them.
// Its generated MCPSchema is then the tool's outputSchema.
func returnsFiles(st *types.Struct) bool {
	for i := range st.NumFields() {
		t := types.Unalias(st.Field(i).Type())
		switch u := t.(type) {
		case *types.Pointer:
			t = u.Elem()
		case *types.Slice:
			t = u.Elem()
		}
		// FileValue is declared in WirePath; a runtime before the wire
		// package declared it in TransferPath.
		if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Name() == "FileValue" && n.Obj().Pkg() != nil && (n.Obj().Pkg().Path() == WirePath || n.Obj().Pkg().Path() == TransferPath) {
			return true
		}
	}
	return false
}

// tagged reports whether a field of st mentions the mcpfile tag.
func tagged(st *types.Struct) bool {
	for i := range st.NumFields() {
		if mentionsTag(st.Tag(i)) {
			return true
		}
	}
	return false
}

// mentionsTag reports whether a struct tag has an mcpfile key, a key that
// looks like a misspelling of it, or is malformed and mentions it.
func mentionsTag(raw string) bool {
	keys, err := tag.StructKeys(raw)
	if slices.ContainsFunc(keys, func(k string) bool { return k == TagKey || tag.Misspelled(k) }) {
		return true
	}
	return err != nil && strings.Contains(strings.ToLower(raw), TagKey)
}

// fields reports whether a field of st that encoding/json decodes holds a
// runtime.File.
func (r *fileReach) fields(st *types.Struct) bool {
	for i := range st.NumFields() {
		if v := st.Field(i); decoded(v, reflect.StructTag(st.Tag(i))) && r.holds(v.Type()) {
			return true
		}
	}
	return false
}

// decoded reports whether encoding/json may decode into field v or, for an
// embedded struct, its promoted fields.
func decoded(v *types.Var, tag reflect.StructTag) bool {
	return (v.Exported() || v.Embedded()) && tag.Get("json") != "-"
}

// holds reports whether a value of type t holds a runtime.File, through
// pointers, slices, arrays, map values and struct fields, but not through
// a struct type with mcpfile tags: mcpfilegen generates its decoder, or
// reports it, in its own package.
func (r *fileReach) holds(t types.Type) bool {
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		if isRuntimeFile(t) {
			return true
		}
		if known, ok := r.memo[t]; ok {
			return known
		}
		if st := fields.Struct(t); r.visiting[t] || infer.Special(t) || st != nil && tagged(st) {
			return false
		}
		r.visiting[t] = true
		holds := r.holds(t.Underlying())
		delete(r.visiting, t)
		// A false found while an enclosing type is being visited may
		// be false only because of the cycle.
		if holds || len(r.visiting) == 0 {
			r.memo[t] = holds
		}
		return holds
	case *types.Pointer:
		return r.holds(t.Elem())
	case *types.Slice:
		return r.holds(t.Elem())
	case *types.Array:
		return r.holds(t.Elem())
	case *types.Map:
		return r.holds(t.Elem())
	case *types.Struct:
		return r.fields(t)
	}
	return false
}

// anyFile returns the package's first file, where package-level errors point.
func (b *builder) anyFile() string {
	if len(b.pkg.GoFiles) > 0 {
		return b.pkg.GoFiles[0]
	}
	return ""
}

func (b *builder) buildType(obj *types.TypeName) *Type {
	named, _ := obj.Type().(*types.Named)
	if named == nil {
		return nil
	}
	st := fields.Struct(named)
	t := &Type{Name: obj.Name(), Named: named, Pos: b.pos(obj.Pos()), Doc: b.typeDocs[obj], Output: returnsFiles(st)}
	if named.TypeParams().Len() > 0 {
		b.errorf(obj.Pos(), "type %s is generic: mcpfilegen generates for non-generic struct types only", t.Name)
		return nil
	}
	b.checkMethods(t, st)

	for i := range st.NumFields() {
		t.Fields = append(t.Fields, b.buildField(t, st.Field(i), reflect.StructTag(st.Tag(i))))
	}
	b.checkJSONNames(t)
	members := fields.JSON(st)
	b.checkOwners(t, st, members)
	for _, f := range t.Fields {
		if f.File != nil && f.File.Filename != "" {
			b.resolveFilename(t, f)
		}
	}
	for _, f := range members {
		t.Keys = append(t.Keys, f.Name)
	}
	b.checkSchema(t)
	return t
}

// inOutput reports whether p is in a file mcpfilegen generated.
func (b *builder) inOutput(p token.Pos) bool {
	tf := b.pkg.Fset.File(p)
	for _, f := range b.pkg.Syntax {
		if b.pkg.Fset.File(f.Pos()) == tf {
			return IsOutput(f)
		}
	}
	return false
}

// drop is the advice on how to stop generating for a type.
func (b *builder) drop(t *Type) string {
	if b.explicit {
		return fmt.Sprintf("leave %s out of -type", t.Name)
	}
	return fmt.Sprintf("remove %s's mcpfile tags", t.Name)
}

// checkEmbedders reports the struct types of the package that are not
// selected but embed a selected type, directly or through other embedded
// structs: they would inherit the methods generated for it, and so have a
// schema (MCPSchema) and a decoder (UnmarshalJSON) for the embedded type's
// fields alone. A selected type gets methods of its own, which the
// inherited ones do not override; its promoted file fields are reported
// by checkSchema. built holds the model of each of selected, nil where
// building failed.
func (b *builder) checkEmbedders(selected []*types.TypeName, built []*Type) {
	files := map[*types.TypeName]bool{} // selected type → gets UnmarshalJSON
	for i, obj := range selected {
		files[obj] = built[i] == nil || len(built[i].Files()) > 0
	}
	scope := b.pkg.Types.Scope()
	for _, name := range scope.Names() {
		obj, ok := scope.Lookup(name).(*types.TypeName)
		if _, sel := files[obj]; !ok || sel || obj.IsAlias() {
			continue
		}
		named, _ := obj.Type().(*types.Named)
		st := fields.Struct(obj.Type())
		if named == nil || st == nil {
			continue
		}
		own := types.NewMethodSet(types.NewPointer(named))
		for i := range st.NumFields() {
			v := st.Field(i)
			if !v.Embedded() {
				continue
			}
			emb, via := embeddedSelected(v.Type(), files, nil, map[*types.TypeName]bool{})
			if emb == nil {
				continue
			}
			var inherited []string
			for _, m := range []string{"MCPSchema", "UnmarshalJSON"} {
				if m == "UnmarshalJSON" && !files[emb] {
					continue
				}
				if sel := own.Lookup(nil, m); sel == nil || len(sel.Index()) > 1 {
					inherited = append(inherited, m)
				}
			}
			if len(inherited) == 0 {
				continue
			}
			through := ""
			if len(via) > 0 {
				through = " (through " + strings.Join(via, ".") + ")"
			}
			what, does := "the "+inherited[0]+" method", "describes"
			switch {
			case len(inherited) == 2:
				what, does = "the MCPSchema and UnmarshalJSON methods", "describe and decode"
			case inherited[0] == "UnmarshalJSON":
				does = "decodes"
			}
			advice := fmt.Sprintf("make %s a named field of %s", emb.Name(), obj.Name())
			if b.explicit && !files[emb] {
				advice += fmt.Sprintf(", or add %s to -type", obj.Name())
			}
			b.errorf(v.Pos(), "type %s embeds %s%s, so it would inherit %s generated for %s, which %s %s's fields alone: %s",
				obj.Name(), emb.Name(), through, what, emb.Name(), does, emb.Name(), advice)
		}
	}
}

// embeddedSelected returns the selected type that an embedded field of
// type t is, or embeds through the embedded fields of the structs it
// is, with the names of those it goes through; nil when there is none.
func embeddedSelected(t types.Type, selected map[*types.TypeName]bool, via []string, seen map[*types.TypeName]bool) (*types.TypeName, []string) {
	t = types.Unalias(fields.Deref(t))
	if n, ok := t.(*types.Named); ok {
		obj := n.Origin().Obj()
		if _, ok := selected[obj]; ok {
			return obj, via
		}
		if seen[obj] {
			return nil, nil
		}
		seen[obj] = true
		via = append(via, obj.Name())
	}
	st := fields.Struct(t)
	if st == nil {
		return nil, nil
	}
	for i := range st.NumFields() {
		if v := st.Field(i); v.Embedded() {
			if obj, path := embeddedSelected(v.Type(), selected, slices.Clone(via), seen); obj != nil {
				return obj, path
			}
		}
	}
	return nil, nil
}

// checkMethods rejects types whose decoding the generated UnmarshalJSON
// cannot own.
func (b *builder) checkMethods(t *Type, st *types.Struct) {
	ms := types.NewMethodSet(types.NewPointer(t.Named))
	// The generated MCPSchema is declared on T: one T declares is a
	// clash, one T inherits is overridden.
	if sel := ms.Lookup(nil, "MCPSchema"); sel != nil && len(sel.Index()) == 1 && !b.inOutput(sel.Obj().Pos()) {
		b.errorf(sel.Obj().Pos(), "type %s already has an MCPSchema method, which the generated one would replace: remove it, or %s",
			t.Name, b.drop(t))
	}
	if sel := ms.Lookup(nil, "UnmarshalJSON"); sel != nil && !(len(sel.Index()) == 1 && b.inOutput(sel.Obj().Pos())) {
		if len(sel.Index()) == 1 {
			b.errorf(sel.Obj().Pos(), "type %s already has an UnmarshalJSON method, which the generated one would replace: remove it, or %s",
				t.Name, b.drop(t))
		} else {
			f := st.Field(sel.Index()[0])
			b.errorf(f.Pos(), "type %s embeds %s, whose UnmarshalJSON method would take over decoding %s: make it a named field, or %s",
				t.Name, f.Name(), t.Name, b.drop(t))
		}
	} else if sel := ms.Lookup(nil, "UnmarshalText"); sel != nil && len(sel.Index()) > 1 {
		f := st.Field(sel.Index()[0])
		b.errorf(f.Pos(), "type %s embeds %s, whose UnmarshalText method would take over decoding %s: make it a named field, or %s",
			t.Name, f.Name(), t.Name, b.drop(t))
	}
}

func (b *builder) buildField(t *Type, v *types.Var, st reflect.StructTag) *Field {
	f := &Field{
		GoName:   v.Name(),
		Pos:      b.pos(v.Pos()),
		Doc:      b.fieldDocs[v],
		Tag:      string(st),
		Embedded: v.Embedded(),
		Type:     v.Type(),
	}
	jt, hasJSON := st.Lookup("json")
	name, opts, _ := strings.Cut(jt, ",")
	for o := range strings.SplitSeq(opts, ",") {
		switch o {
		case "omitempty":
			f.OmitEmpty = true
		case "omitzero":
			f.OmitZero = true
		}
	}
	embStruct := fields.Struct(fields.Deref(v.Type())) != nil
	switch {
	case jt == "-":
		f.Skip = true
		if f.Embedded && embStruct {
			b.errorf(v.Pos(), "embedded field %s has json:\"-\": encoding/json ignores it but the SDK's schema inference still lists its fields; remove the embedding or the tag",
				v.Name())
		}
	case f.Embedded:
		switch {
		case !v.Exported() && !embStruct:
			f.Skip = true
		case !embStruct:
			b.errorf(v.Pos(), "embedded field %s of non-struct type %s: encoding/json decodes it as member %q but the SDK's schema inference leaves it out; make it a named field",
				v.Name(), typeString(v.Type()), jsonName(v, name))
			f.Skip = true
		case name != "":
			b.errorf(v.Pos(), "embedded field %s has json name %q: encoding/json decodes it as one member but the SDK's schema inference promotes its fields; drop the name or make it a named field",
				v.Name(), name)
			f.JSONName = name
		}
	case !v.Exported():
		f.Skip = true
	default:
		if hasJSON && name != "" && !fields.ValidName(name) {
			b.errorf(v.Pos(), "invalid json name %q: encoding/json ignores it and uses %q, the SDK's schema uses it as is", name, v.Name())
		}
		f.JSONName = jsonName(v, name)
	}
	f.Required = !f.Skip && !f.Embedded && !f.OmitEmpty && !f.OmitZero
	if d, ok := st.Lookup("jsonschema"); ok && d != "" {
		f.Description = d
	} else {
		f.Description = f.Doc
	}

	reported := b.checkStructTag(v, st)
	raw, ok := st.Lookup(TagKey)
	if !ok {
		if !reported {
			b.checkUntagged(f, v)
		}
		return f
	}
	switch {
	case f.Embedded:
		b.errorf(v.Pos(), "mcpfile tag on embedded field %s: declare a file field as a named field", v.Name())
		return f
	case f.Skip:
		b.errorf(v.Pos(), "mcpfile tag on field %s, which encoding/json skips (unexported or json:\"-\")", v.Name())
		return f
	}
	kind, ok := fileKind(v.Type())
	if !ok {
		b.errorf(v.Pos(), "mcpfile tag on field %s of type %s (want runtime.File, *runtime.File, []runtime.File, string, *string or []string)",
			v.Name(), typeString(v.Type()))
		return f
	}
	if d, ok := st.Lookup("jsonschema"); ok {
		// The SDK does not see file fields; hold them to its rule anyway.
		if msg := infer.CheckDescription(d); msg != "" {
			b.errorf(v.Pos(), "field %s: %s", v.Name(), msg)
		}
	}
	if slices.Contains(strings.Split(opts, ","), "string") {
		b.errorf(v.Pos(), "json option \",string\" on file field %s: a file argument is a data: URI as it comes, never quoted again; remove ,string",
			v.Name())
	}
	tg, err := tag.Parse(raw)
	if err != nil {
		for _, e := range tag.Errors(err) {
			b.errorf(v.Pos(), "%v", e)
		}
		return f
	}
	f.File = &File{
		Kind:     kind,
		Accept:   tg.Accept,
		MaxSize:  tg.MaxSize,
		MaxFiles: tg.MaxFiles,
		NoSniff:  tg.NoSniff,
		Filename: tg.Filename,

		TransferModes: tg.Transfer,
		Form:          tg.Form,
	}
	if tg.MaxFiles > 0 && !kind.Slice() {
		b.errorf(v.Pos(), "maxFiles on field %s of type %s: it limits the items of []runtime.File or []string fields only",
			v.Name(), typeString(v.Type()))
	}
	switch {
	case tg.HasMinFiles && !kind.Slice():
		b.errorf(v.Pos(), "minFiles on field %s of type %s: it limits the items of []runtime.File or []string fields only",
			v.Name(), typeString(v.Type()))
	case tg.HasMinFiles && tg.MaxFiles > 0 && tg.MinFiles > tg.MaxFiles:
		b.errorf(v.Pos(), "minFiles=%d on field %s is more than maxFiles=%d (want minFiles at most maxFiles)", tg.MinFiles, v.Name(), tg.MaxFiles)
	case tg.HasMinFiles:
		f.File.MinFiles = tg.MinFiles
	case kind.Slice() && f.Required:
		f.File.MinFiles = 1
	}
	if tg.Filename != "" && kind >= KindString {
		b.errorf(v.Pos(), "filename on field %s of type %s: only runtime.File fields carry a name (use runtime.File, *runtime.File or []runtime.File)",
			v.Name(), typeString(v.Type()))
		f.File.Filename = ""
	}
	if slices.Contains(tg.Transfer, "upload") && kind >= KindString {
		b.errorf(v.Pos(), "transfer=%s on field %s of type %s: a string field keeps the file's data: URI itself, and an uploaded file has no data: URI (use runtime.File, *runtime.File or []runtime.File, or transfer=inline)",
			strings.Join(tg.Transfer, "|"), v.Name(), typeString(v.Type()))
		f.File.TransferModes = nil
	}
	b.checkForm(f, v)
	return f
}

// checkForm reports a form= on a field that cannot take the form's
// object; the tag has refused form with transfer= and filename=.
func (b *builder) checkForm(f *Field, v *types.Var) {
	switch form := f.File.Form; {
	case form == "":
	case f.File.Kind >= KindString:
		b.errorf(v.Pos(), "form=%s on field %s of type %s: a string field keeps the file's data: URI, and a form sends the file as an object, without one (use runtime.File, *runtime.File or []runtime.File, or leave form out)",
			form, v.Name(), typeString(v.Type()))
		f.File.Form = ""
	case form == tag.FormOpenAI && f.File.Kind.Slice():
		b.errorf(v.Pos(), "form=openai on field %s of type %s: ChatGPT's openai/fileParams names top-level fields that each hold one file, so a list of files cannot be one (use runtime.File or *runtime.File, one field a file, or form=filedata)",
			v.Name(), typeString(v.Type()))
		f.File.Form = ""
	}
}

// checkStructTag reports a struct tag that reflect.StructTag.Lookup cannot
// read to its end, which would hide the keys after the fault, and keys that
// look like misspellings of mcpfile, which would leave a file field
// undeclared. It reports whether it found such a fault in a tag that
// mentions mcpfile.
func (b *builder) checkStructTag(v *types.Var, st reflect.StructTag) (reported bool) {
	keys, err := tag.StructKeys(string(st))
	if err != nil {
		b.errorf(v.Pos(), "field %s: malformed struct tag %q: %v", v.Name(), string(st), err)
		reported = strings.Contains(strings.ToLower(string(st)), TagKey)
	}
	for _, k := range keys {
		if tag.Misspelled(k) {
			b.errorf(v.Pos(), "field %s: misspelled struct tag key %q: the key is %s", v.Name(), k, TagKey)
			reported = true
		}
	}
	return reported
}

// checkUntagged reports a field without an mcpfile tag that holds a file
// where encoding/json would decode it: as an object, unchecked.
func (b *builder) checkUntagged(f *Field, v *types.Var) {
	kind, isFile := fileKind(v.Type())
	switch {
	case f.Skip:
	case f.Embedded:
		if isRuntimeFile(types.Unalias(fields.Deref(v.Type()))) {
			b.errorf(v.Pos(), "embedded field %s is a %s: declare a file field as a named field with an mcpfile tag",
				v.Name(), typeString(v.Type()))
		}
	case isFile && kind < KindString:
		b.errorf(v.Pos(), "field %s of type %s has no mcpfile tag: add mcpfile:\"\" or constraints such as mcpfile:\"accept=image/png,maxSize=5MiB\"",
			v.Name(), typeString(v.Type()))
	}
}

// untaggedFile reports whether f is a field checkUntagged reported as a
// file field without a tag.
func untaggedFile(f *Field) bool {
	kind, isFile := fileKind(f.Type)
	return isFile && kind < KindString && !f.Skip && !f.Embedded && f.File == nil
}

func jsonName(v *types.Var, tagName string) string {
	if tagName != "" && fields.ValidName(tagName) {
		return tagName
	}
	return v.Name()
}

// fileKind reports which file field type t is.
func fileKind(t types.Type) (Kind, bool) {
	t = types.Unalias(t)
	switch {
	case isRuntimeFile(t):
		return KindFile, true
	case types.Identical(t, types.Typ[types.String]):
		return KindString, true
	}
	switch u := t.(type) {
	case *types.Pointer:
		switch e := types.Unalias(u.Elem()); {
		case isRuntimeFile(e):
			return KindFilePointer, true
		case types.Identical(e, types.Typ[types.String]):
			return KindStringPointer, true
		}
	case *types.Slice:
		switch e := types.Unalias(u.Elem()); {
		case isRuntimeFile(e):
			return KindFileSlice, true
		case types.Identical(e, types.Typ[types.String]):
			return KindStringSlice, true
		}
	}
	return 0, false
}

func isRuntimeFile(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == "File" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == RuntimePath
}

// checkJSONNames rejects two direct fields with one JSON name:
// encoding/json would decode neither.
func (b *builder) checkJSONNames(t *Type) {
	seen := map[string]*Field{}
	for _, f := range t.Fields {
		if f.Skip || f.JSONName == "" {
			continue
		}
		if g := seen[f.JSONName]; g != nil {
			b.errs.Add(f.Pos, "fields %s and %s of %s have the same json name %q: encoding/json decodes neither", g.GoName, f.GoName, t.Name, f.JSONName)
			continue
		}
		seen[f.JSONName] = f
	}
}

// checkOwners rejects a JSON name that encoding/json decodes into one field
// while the SDK's schema describes another: jsonschema-go lets the last of
// several visible fields of one name win, encoding/json the shallowest.
// members are the fields encoding/json decodes (fields.JSON(st)).
func (b *builder) checkOwners(t *Type, st *types.Struct, members []fields.Field) {
	sdk := map[string]fields.Field{}
	for _, f := range fields.Visible(st) {
		if f.Var.Embedded() {
			continue
		}
		if name, omit, _ := fields.SchemaInfo(f.Var, f.Tag); !omit {
			sdk[name] = f
		}
	}
	for _, f := range members {
		if g, ok := sdk[f.Name]; ok && g.Var != f.Var {
			b.errs.Add(t.Fields[f.Index[0]].Pos, "json name %q: encoding/json decodes it into %s but the SDK's schema describes %s; rename one of them",
				f.Name, fields.Path(st, f.Index), fields.Path(st, g.Index))
		}
	}
}

func (b *builder) resolveFilename(t *Type, f *Field) {
	name := f.File.Filename
	var g *Field
	for _, c := range t.Fields {
		if !c.Skip && c.JSONName == name {
			g = c
			break
		}
	}
	want, wantType := "string", types.Type(types.Typ[types.String])
	if f.File.Kind.Slice() {
		want, wantType = "[]string", types.NewSlice(types.Typ[types.String])
	}
	switch {
	case g == nil:
		b.errs.Add(f.Pos, "filename=%s names no field of %s (want the json name of a %s field declared in %s)", name, t.Name, want, t.Name)
	case g == f || g.File != nil:
		b.errs.Add(f.Pos, "filename=%s names file field %s (want a %s field that is not a file field)", name, g.GoName, want)
	case !types.Identical(types.Unalias(g.Type), wantType):
		b.errs.Add(f.Pos, "filename=%s names field %s of type %s (want %s)", name, g.GoName, typeString(g.Type), want)
	default:
		f.File.FilenameField = g
	}
}

// checkSchema runs the SDK's schema inference over the type, so that a type
// it cannot express is reported here, with a position, and mcpfile tags below
// the top level are found. The schema it infers is dropped: the schema phase
// infers it again (Package.InferSchema), one type at a time, as kept for
// every type in between the schemas would be much of the generator's memory.
func (b *builder) checkSchema(t *Type) {
	_, err := inferSchema(t, b.fieldDocs, nil)
	var ies infer.Errors
	switch err := err.(type) {
	case nil:
		return
	case infer.Errors:
		ies = err
	case *infer.Error:
		ies = infer.Errors{err}
	default:
		b.errs.Add(t.Pos, "%v", err)
		return
	}
	for _, ie := range ies {
		b.errs.Add(b.inferPos(t, ie), "%s", inferMsg(t, ie))
	}
}

// InferSchema returns the schema of t, a type of p, as the SDK's inference
// gives it, with the property file(f) for each file field f, and the doc
// comments of the package's struct fields as their descriptions where they
// have no jsonschema tag: the inference Build ran to check t.
func (p *Package) InferSchema(t *Type, file func(f *Field) *jsonschema.Schema) (*jsonschema.Schema, error) {
	return inferSchema(t, p.fieldDocs, file)
}

// inferSchema runs the SDK's schema inference over t with the descriptions
// docs, and file(f) for the property of each field f that has an mcpfile
// tag or is a file field without one (reported by checkUntagged). With file
// nil, it only checks t: it builds no schema.
func inferSchema(t *Type, docs map[*types.Var]string, file func(*Field) *jsonschema.Schema) (*jsonschema.Schema, error) {
	over := map[*types.Var]*jsonschema.Schema{}
	st := fields.Struct(t.Named)
	for i, f := range t.Fields {
		if _, ok := reflect.StructTag(f.Tag).Lookup(TagKey); ok || untaggedFile(f) {
			// When checking, what matters is that the field's type is
			// not walked.
			s := jsonschema.TrueSchema
			if file != nil {
				s = file(f)
			}
			over[st.Field(i)] = s
		}
	}
	return infer.For(t.Named, infer.Config{
		Doc:        func(v *types.Var) string { return docs[v] },
		Override:   over,
		RejectTag:  TagKey,
		RejectType: func(n *types.Named) bool { return isRuntimeFile(n) },
		All:        true,
		Check:      file == nil,
	})
}

// inferPos is where an inference failure is reported: at the type's field
// it was reached through.
func (b *builder) inferPos(t *Type, ie *infer.Error) token.Position {
	if ie.Top >= 0 && ie.Top < len(t.Fields) {
		return t.Fields[ie.Top].Pos
	}
	return t.Pos
}

func inferMsg(t *Type, ie *infer.Error) string {
	if ie.Kind == infer.ErrRejectedType {
		switch {
		case ie.Promoted && !ie.Nested:
			emb, _, _ := strings.Cut(ie.Path, ".")
			return fmt.Sprintf("embedded field %s has a runtime.File field %s: file fields must be declared directly in %s, with an mcpfile tag", emb, ie.Path, t.Name)
		case ie.Nested:
			return fmt.Sprintf("field %s holds a runtime.File: file fields must be top-level fields of %s, not fields of nested structs", ie.Path, t.Name)
		}
		if ie.Top < 0 || ie.Top >= len(t.Fields) {
			return fmt.Sprintf("%s holds a runtime.File: a file field is a top-level runtime.File, *runtime.File or []runtime.File field with an mcpfile tag", t.Name)
		}
		f := t.Fields[ie.Top]
		return fmt.Sprintf("field %s of type %s holds runtime.File values: a file field is a runtime.File, *runtime.File or []runtime.File with an mcpfile tag",
			f.GoName, typeString(f.Type))
	}
	if ie.Kind == infer.ErrTag {
		if ie.Promoted && !ie.Nested {
			emb, _, _ := strings.Cut(ie.Path, ".")
			return fmt.Sprintf("embedded field %s has an mcpfile field %s: file fields must be declared directly in %s", emb, ie.Path, t.Name)
		}
		msg := fmt.Sprintf("field %s has an mcpfile tag: file fields must be top-level fields of %s, not fields of nested structs", ie.Path, t.Name)
		if tg, err := tag.Parse(ie.TagValue); err == nil && tg.Form == tag.FormOpenAI {
			msg += " (and ChatGPT's openai/fileParams lists top-level fields only)"
		}
		return msg
	}
	if ie.Path != "" {
		return fmt.Sprintf("field %s: %s", ie.Path, ie.Msg)
	}
	return ie.Msg
}

func typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

func dirOf(file string) string {
	if i := strings.LastIndexAny(file, `/\`); i >= 0 {
		return file[:i]
	}
	return "."
}
