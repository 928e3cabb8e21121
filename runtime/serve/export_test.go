package serve

// ServeIO is serveIO, for the external tests: Stdio over pipes.
var ServeIO = serveIO
