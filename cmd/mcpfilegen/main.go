package main

import (
	"os"
	"runtime/debug"

	"github.com/mcpfile/mcpfile/gen"
)

func main() {
	debug.SetGCPercent(gen.GCPercent)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
