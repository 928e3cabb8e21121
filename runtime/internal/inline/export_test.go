package inline

// SetCareful makes every Rewrite walk the careful way, as it does again
// when the quick walk may have read a string wrong, until restore.
func SetCareful(on bool) (restore func()) {
	was := alwaysCareful
	alwaysCareful = on
	return func() { alwaysCareful = was }
}

// A ScopeFile is a file a reference of a scope stands for.
type ScopeFile struct {
	Arg  string
	File any
}

// ScopeFiles returns the files of the references of sc not taken yet, in
// the order they were made.
func ScopeFiles(sc *Scope) []ScopeFile {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	var fs []ScopeFile
	for _, t := range sc.tokens {
		if v, ok := entries.Load(t); ok {
			e := v.(*entry)
			fs = append(fs, ScopeFile{e.arg, e.file})
		}
	}
	return fs
}

// NewReadingSizes is NewReading with the sizes it works with set: splices
// start after min characters (a multiple of 4), block characters are
// decoded at a time (a multiple of 4), and a splice is
// decoded into chunks of chunk bytes growing to maxChunk. Small sizes let
// short input reach every edge.
func NewReadingSizes(min, block, chunk, maxChunk int) *Reading {
	return newReading(sizes{min: min, block: block, chunk: chunk, maxChunk: maxChunk})
}
