package transfer

// SessionOwner is the owner of the files of an anonymous caller in the
// session whose ID is sid, for tests that make file URIs of their own.
var SessionOwner = sessionOwner
