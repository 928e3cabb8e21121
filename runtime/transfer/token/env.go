package token

import (
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
)

// envFormat is what every error of [KeyringFromEnv] says the variable
// should hold.
const envFormat = "want one or more keys separated by commas, the first signing, each [<id>:]<at least 64 hex characters>; make a key with openssl rand -hex 32"

// EnvOptions are the options of [KeyringFromEnv]. The zero value reads the
// process's environment and requires the variable.
type EnvOptions struct {
	// RandomIfUnset, when the variable is unset or blank, makes a keyring of
	// one random key ([RandomKey]) instead of an error, and logs a warning
	// that says so: for development only. Tokens and file URIs signed with
	// it stop verifying when the process restarts, and replicas, each with a
	// key of its own, refuse each other's. A variable that is set but
	// malformed is an error either way.
	RandomIfUnset bool
	// Logger receives that warning. Nil means slog.Default().
	Logger *slog.Logger
	// Getenv looks the variable up. Nil means os.Getenv.
	Getenv func(string) string
}

// KeyringFromEnv returns the keyring of the keys in the environment
// variable name, which holds one or more keys separated by commas: the
// first signs, and all of them verify. To rotate, put a new key first and
// keep the old one after it until everything it signed has expired (with
// runtime/transfer's defaults, a file URI lasts 24 hours). Each key is a secret of at least
// [MinSecretLen] bytes in hex, such as the 64 characters of
// openssl rand -hex 32, optionally preceded by an id and a colon:
//
//	MCPFILE_TRANSFER_KEY=$(openssl rand -hex 32)
//	MCPFILE_TRANSFER_KEY=<new key>,<old key>
//	MCPFILE_TRANSFER_KEY=2026-12:<new key>,2026-11:<old key>
//
// Without an id, a key's id is derived from its secret, as by [NewKey], so
// replicas given the same secrets agree on the ids. Space around a key is
// ignored. Every replica serving the same clients needs the same keys.
//
// An unset or blank variable is an error, unless o.RandomIfUnset is set
// (development). A malformed one is an error that names the variable, the
// key at fault by position and what is wrong with it, and the expected
// format; no error or log record contains a secret. A nil o means the zero
// EnvOptions.
func KeyringFromEnv(name string, o *EnvOptions) (*Keyring, error) {
	if o == nil {
		o = &EnvOptions{}
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	value := getenv(name)
	if strings.TrimSpace(value) == "" {
		if !o.RandomIfUnset {
			return nil, fmt.Errorf("token: %s is not set (%s)", name, envFormat)
		}
		k := RandomKey()
		logger := o.Logger
		if logger == nil {
			logger = slog.Default()
		}
		logger.Warn("token: "+name+" is not set: signing with a random key, for development only: "+
			"tokens and file URIs will not survive a restart of this process, and replicas will not accept each other's; "+
			"set "+name+" to a key made with openssl rand -hex 32, the same on every replica",
			slog.String("env", name), slog.String("key_id", k.ID()))
		return NewKeyring(k)
	}

	entries := strings.Split(value, ",")
	keys := make([]Key, len(entries))
	firstOfID := map[string]int{}
	for i, entry := range entries {
		which := "the key"
		if len(entries) > 1 {
			which = fmt.Sprintf("key %d of %d", i+1, len(entries))
		}
		k, err := parseEnvKey(strings.TrimSpace(entry))
		if err != nil {
			return nil, fmt.Errorf("token: %s: %s %v (%s)", name, which, err, envFormat)
		}
		if j, dup := firstOfID[k.ID()]; dup {
			return nil, fmt.Errorf("token: %s: keys %d and %d have the same id: the same secret twice, or the same id before ':' (%s)", name, j+1, i+1, envFormat)
		}
		firstOfID[k.ID()] = i
		keys[i] = k
	}
	return NewKeyring(keys...)
}

// parseEnvKey returns the key of one entry of the variable,
// [<id>:]<hex secret>. Its errors follow "key 2 of 3 " and hold nothing
// of the entry but lengths.
func parseEnvKey(entry string) (Key, error) {
	if entry == "" {
		return Key{}, errors.New("is empty")
	}
	id, secretHex, hasID := strings.Cut(entry, ":")
	if !hasID {
		id, secretHex = "", entry
	} else if !isIDChars(id, MaxKeyIDLen) {
		return Key{}, fmt.Errorf("has an id before ':' that is not 1 to %d characters of [A-Za-z0-9_-]", MaxKeyIDLen)
	}
	secret, err := hex.DecodeString(secretHex)
	switch {
	case err != nil:
		// Not err itself: hex's error quotes the offending byte of the secret.
		return Key{}, fmt.Errorf("is not hex (%d characters)", len(secretHex))
	case len(secret) < MinSecretLen:
		return Key{}, fmt.Errorf("has %d bytes, want at least %d (%d hex characters)", len(secret), MinSecretLen, 2*MinSecretLen)
	}
	return NewKey(id, secret)
}
