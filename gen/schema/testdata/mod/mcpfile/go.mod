module github.com/mcpfile/mcpfile

go 1.25
