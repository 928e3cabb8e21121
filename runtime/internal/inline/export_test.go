package inline

// SetCareful makes every Rewrite walk the careful way, as it does again
// when the quick walk may have read a string wrong, until restore.
func SetCareful(on bool) (restore func()) {
	was := alwaysCareful
	alwaysCareful = on
	return func() { alwaysCareful = was }
}
