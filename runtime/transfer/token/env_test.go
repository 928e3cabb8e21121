package token

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// hexOf returns the secret of 32 bytes b, b, … in hex.
func hexOf(b byte) string { return hex.EncodeToString(bytes.Repeat([]byte{b}, 32)) }

// getenv returns a Getenv that knows the variable KEYS only, set to value.
func getenv(value string) func(string) string {
	return func(name string) string {
		if name == "KEYS" {
			return value
		}
		return ""
	}
}

// TestKeyringFromEnv: the keys are read in order, ids given or derived as
// NewKey derives them, space around a key ignored.
func TestKeyringFromEnv(t *testing.T) {
	derived := func(b byte) string { return mustKey("", bytes.Repeat([]byte{b}, 32)).ID() }
	for _, tt := range []struct {
		value string
		ids   []string
	}{
		{hexOf(1), []string{derived(1)}},
		{" " + hexOf(1) + "\n", []string{derived(1)}},
		{strings.ToUpper(hexOf(0xab)), []string{derived(0xab)}},
		{hexOf(2) + "," + hexOf(1), []string{derived(2), derived(1)}},
		{"2026-12:" + hexOf(2) + " , 2026-11:" + hexOf(1), []string{"2026-12", "2026-11"}},
		{"new:" + hexOf(2) + "," + hexOf(1), []string{"new", derived(1)}},
		{strings.Repeat("x", MaxKeyIDLen) + ":" + hexOf(1) + strings.Repeat("00", 32), []string{strings.Repeat("x", MaxKeyIDLen)}},
	} {
		r, err := KeyringFromEnv("KEYS", &EnvOptions{Getenv: getenv(tt.value)})
		if err != nil {
			t.Errorf("KeyringFromEnv(KEYS=%q): %v", tt.value, err)
			continue
		}
		var ids []string
		for _, k := range r.keys {
			ids = append(ids, k.ID())
		}
		if strings.Join(ids, " ") != strings.Join(tt.ids, " ") {
			t.Errorf("KeyringFromEnv(KEYS=%q) has ids %q, want %q", tt.value, ids, tt.ids)
		}
	}
}

// TestKeyringFromEnvRotation: the first key signs and every key verifies,
// so a replica with new,old accepts what one with old alone signed, and
// one with old alone refuses what the new key signed.
func TestKeyringFromEnvRotation(t *testing.T) {
	both, err := KeyringFromEnv("KEYS", &EnvOptions{Getenv: getenv("new:" + hexOf(2) + ",old:" + hexOf(1))})
	if err != nil {
		t.Fatal(err)
	}
	old, err := KeyringFromEnv("KEYS", &EnvOptions{Getenv: getenv("old:" + hexOf(1))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := both.Verify(sign(t, old, claims()), PurposeUpload, now); err != nil {
		t.Errorf("new,old refuses a token of old: %v", err)
	}
	tok := sign(t, both, claims())
	if _, err := both.Verify(tok, PurposeUpload, now); err != nil {
		t.Errorf("new,old refuses its own token: %v", err)
	}
	if _, err := old.Verify(tok, PurposeUpload, now); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("old verifies a token of new,old: %v, want ErrUnknownKey (new signs)", err)
	}
}

// TestKeyringFromEnvErrors: each malformed variable is refused with what
// is wrong, where, and the format wanted, and no error holds a secret.
func TestKeyringFromEnvErrors(t *testing.T) {
	const format = " (want one or more keys separated by commas, the first signing, each [<id>:]<at least 64 hex characters>; make a key with openssl rand -hex 32)"
	notHex := strings.Repeat("5e", 31) + "zz"
	for _, tt := range []struct{ value, want string }{
		{"", "token: KEYS is not set" + format},
		{" \t\n", "token: KEYS is not set" + format},
		{notHex, "token: KEYS: the key is not hex (64 characters)" + format},
		{hexOf(1)[:63], "token: KEYS: the key is not hex (63 characters)" + format},
		{hexOf(1)[:62], "token: KEYS: the key has 31 bytes, want at least 32 (64 hex characters)" + format},
		{hexOf(1) + "," + hexOf(2)[:10], "token: KEYS: key 2 of 2 has 5 bytes, want at least 32 (64 hex characters)" + format},
		{hexOf(1) + ",", "token: KEYS: key 2 of 2 is empty" + format},
		{hexOf(1) + ",," + hexOf(2), "token: KEYS: key 2 of 3 is empty" + format},
		{":" + hexOf(1), "token: KEYS: the key has an id before ':' that is not 1 to 32 characters of [A-Za-z0-9_-]" + format},
		{"a b:" + hexOf(1), "token: KEYS: the key has an id before ':' that is not 1 to 32 characters of [A-Za-z0-9_-]" + format},
		{strings.Repeat("x", MaxKeyIDLen+1) + ":" + hexOf(1), "token: KEYS: the key has an id before ':' that is not 1 to 32 characters of [A-Za-z0-9_-]" + format},
		{hexOf(7)[:20] + ":" + hexOf(7)[20:], "token: KEYS: the key has 22 bytes, want at least 32 (64 hex characters)" + format},
		{"k:" + hexOf(1) + ":" + hexOf(2), "token: KEYS: the key is not hex (129 characters)" + format},
		{hexOf(1) + "," + hexOf(2) + "," + hexOf(1), "token: KEYS: keys 1 and 3 have the same id: the same secret twice, or the same id before ':'" + format},
		{"a:" + hexOf(1) + ",a:" + hexOf(2), "token: KEYS: keys 1 and 2 have the same id: the same secret twice, or the same id before ':'" + format},
	} {
		for _, random := range []bool{false, true} {
			if random && strings.TrimSpace(tt.value) == "" {
				continue // development mode: a random key
			}
			var log bytes.Buffer
			r, err := KeyringFromEnv("KEYS", &EnvOptions{Getenv: getenv(tt.value), RandomIfUnset: random, Logger: slog.New(slog.NewTextHandler(&log, nil))})
			if r != nil || err == nil || err.Error() != tt.want {
				t.Errorf("KeyringFromEnv(KEYS=%q, RandomIfUnset %v) = %v, %v\nwant error %q", tt.value, random, r, err, tt.want)
			}
			if log.Len() != 0 {
				t.Errorf("KeyringFromEnv(KEYS=%q, RandomIfUnset %v) logged %q, want nothing", tt.value, random, log.String())
			}
			for _, secret := range []string{hexOf(1), hexOf(2), hexOf(7)[20:], notHex, hexOf(1)[:62]} {
				if err != nil && strings.Contains(strings.ToLower(err.Error()), secret[:16]) {
					t.Errorf("error %q holds a secret", err)
				}
			}
		}
	}
}

// TestKeyringFromEnvRandom: in development mode an unset variable gets a
// random key, different in every process (so replicas do not accept each
// other's file URIs), and one warning says so.
func TestKeyringFromEnvRandom(t *testing.T) {
	var log bytes.Buffer
	o := &EnvOptions{Getenv: getenv(""), RandomIfUnset: true, Logger: slog.New(slog.NewJSONHandler(&log, nil))}
	a, err := KeyringFromEnv("KEYS", o)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Level, Msg, Env string
		KeyID           string `json:"key_id"`
	}
	if err := json.Unmarshal(log.Bytes(), &rec); err != nil {
		t.Fatalf("log %q: want one JSON record: %v", log.String(), err)
	}
	if rec.Level != "WARN" || rec.Env != "KEYS" || rec.KeyID != a.keys[0].ID() {
		t.Errorf("record %+v, want level WARN, env KEYS, key_id %q", rec, a.keys[0].ID())
	}
	for _, want := range []string{"KEYS is not set", "random key", "for development only", "restart", "replicas will not accept each other's", "openssl rand -hex 32"} {
		if !strings.Contains(rec.Msg, want) {
			t.Errorf("message %q does not say %q", rec.Msg, want)
		}
	}

	b, err := KeyringFromEnv("KEYS", o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Verify(sign(t, a, claims()), PurposeUpload, now); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("a second random keyring verifies the first's token: %v, want ErrUnknownKey", err)
	}
	if n := strings.Count(log.String(), "\n"); n != 2 {
		t.Errorf("%d records for two calls, want 2: %q", n, log.String())
	}

	// A variable that is set is used, random or not.
	log.Reset()
	o.Getenv = getenv("k:" + hexOf(1))
	c, err := KeyringFromEnv("KEYS", o)
	if err != nil || c.keys[0].ID() != "k" || log.Len() != 0 {
		t.Errorf("KeyringFromEnv(KEYS set, RandomIfUnset) = %v, %v and logged %q; want key k and no log", c, err, log.String())
	}
}

// TestKeyringFromEnvDefaults: nil options read the process's environment
// and log to slog.Default.
func TestKeyringFromEnvDefaults(t *testing.T) {
	t.Setenv("MCPFILE_TEST_KEYS", "env:"+hexOf(3))
	r, err := KeyringFromEnv("MCPFILE_TEST_KEYS", nil)
	if err != nil || r.keys[0].ID() != "env" {
		t.Errorf("KeyringFromEnv(nil) = %v, %v; want the key of the environment", r, err)
	}

	var log bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&log, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	t.Setenv("MCPFILE_TEST_KEYS", "")
	if _, err := KeyringFromEnv("MCPFILE_TEST_KEYS", &EnvOptions{RandomIfUnset: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "random key") {
		t.Errorf("slog.Default got %q, want the warning", log.String())
	}
}
