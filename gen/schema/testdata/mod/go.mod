module example.com/fixture

go 1.25

require github.com/mcpfile/mcpfile v0.0.0

replace github.com/mcpfile/mcpfile => ./mcpfile
