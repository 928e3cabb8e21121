package token_test

import (
	"fmt"
	"log"
	"log/slog"
	"os"
	"strings"

	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

func ExampleKeyringFromEnv() {
	// As a deployment sets it, here with two keys during a rotation:
	// MCPFILE_TRANSFER_KEY=2026-12:$(openssl rand -hex 32),2026-11:<the old key>
	os.Setenv("MCPFILE_TRANSFER_KEY", "2026-12:"+strings.Repeat("2a", 32)+",2026-11:"+strings.Repeat("17", 32))
	defer os.Unsetenv("MCPFILE_TRANSFER_KEY")

	keys, err := token.KeyringFromEnv("MCPFILE_TRANSFER_KEY", nil)
	if err != nil {
		log.Fatal(err) // what is wrong with the variable and the format it wants, never the key
	}
	fmt.Println(keys)
	// Output:
	// token.Keyring["2026-12" "2026-11"]
}

func ExampleKeyringFromEnv_development() {
	// For development: without the variable, a random key, and a warning.
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "key_id" { // they change with every run
				return slog.Attr{}
			}
			return a
		},
	}))
	keys, err := token.KeyringFromEnv("MCPFILE_EXAMPLE_UNSET", &token.EnvOptions{RandomIfUnset: true, Logger: logger})
	if err != nil {
		log.Fatal(err)
	}
	_ = keys
	// Output:
	// level=WARN msg="token: MCPFILE_EXAMPLE_UNSET is not set: signing with a random key, for development only: tokens and file URIs will not survive a restart of this process, and replicas will not accept each other's; set MCPFILE_EXAMPLE_UNSET to a key made with openssl rand -hex 32, the same on every replica" env=MCPFILE_EXAMPLE_UNSET
}
