package inline

// SetCareful makes every Rewrite walk the careful way, as it does again
// when the quick walk may have read a string wrong, until restore.
func SetCareful(on bool) (restore func()) {
	was := alwaysCareful
	alwaysCareful = on
	return func() { alwaysCareful = was }
}

// NewReadingSizes is NewReading with the sizes it works with set: splices
// start after min characters (a multiple of 4), block characters are
// decoded at a time (a multiple of 4), and a splice without a hint is
// decoded into chunks of chunk bytes growing to maxChunk. Small sizes let
// short input reach every edge.
func NewReadingSizes(hint int64, min, block, chunk, maxChunk int) *Reading {
	return newReading(hint, sizes{min: min, block: block, chunk: chunk, maxChunk: maxChunk})
}
