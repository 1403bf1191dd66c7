// Command gonote opens Questlog checkpoints with Go's own signed-note code
// (golang.org/x/mod/sumdb/note), which Questlog did not write: the log's
// Ed25519 signature through note.NewVerifier, and the witnesses'
// cosignatures through a cosignature/v1 note.Verifier.
//
// The cosignature/v1 verifier below (cosigVerifier and newCosigVerifier) is
// the only code of ours on the Go side. It is written from the C2SP
// tlog-cosignature spec with crypto/ed25519 alone, not from the Python code:
//   - vkey: <name>+<8 hex key ID>+base64(0x04 || 32-byte Ed25519 key);
//   - key ID: SHA-256(<name> || "\n" || 0x04 || key)[:4];
//   - signature: u64 big-endian timestamp || 64-byte Ed25519 signature over
//     "cosignature/v1\ntime <timestamp>\n" followed by the note's body.
//
// It reads one JSON document on stdin, made by
// tests/unit/test_go_note_interop.py: cases, each a note, the log's vkeys and
// the witnesses' vkeys. It writes one JSON document on stdout: for each case
// whether note.Open accepted the note, Go's error if not, and the names of the
// signatures it verified and of those it could not.
package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

type testCase struct {
	Name      string   `json:"name"`
	Note      string   `json:"note"`
	LogKeys   []string `json:"log_keys"`
	Witnesses []string `json:"witnesses"`
}

type verdict struct {
	Name       string   `json:"name"`
	OK         bool     `json:"ok"`
	Error      string   `json:"error"`
	Verified   []string `json:"verified"`
	Unverified []string `json:"unverified"`
	Timestamps []uint64 `json:"timestamps"`
}

// cosigVerifier checks Ed25519 cosignature/v1 signatures (C2SP tlog-cosignature).
type cosigVerifier struct {
	name string
	hash uint32
	key  ed25519.PublicKey
	// the timestamps of the cosignatures it verified, in order
	seen *[]uint64
}

func (v cosigVerifier) Name() string    { return v.name }
func (v cosigVerifier) KeyHash() uint32 { return v.hash }

func (v cosigVerifier) Verify(msg, sig []byte) bool {
	if len(sig) != 8+ed25519.SignatureSize {
		return false
	}
	timestamp := binary.BigEndian.Uint64(sig[:8])
	if timestamp > 1<<63-1 {
		return false
	}
	var signed bytes.Buffer
	signed.WriteString("cosignature/v1\ntime " + strconv.FormatUint(timestamp, 10) + "\n")
	signed.Write(msg)
	if !ed25519.Verify(v.key, signed.Bytes(), sig[8:]) {
		return false
	}
	*v.seen = append(*v.seen, timestamp)
	return true
}

func newCosigVerifier(vkey string, seen *[]uint64) (note.Verifier, error) {
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 {
		return nil, fmt.Errorf("malformed cosigner vkey %q", vkey)
	}
	name, id, material := parts[0], parts[1], parts[2]
	raw, err := base64.StdEncoding.DecodeString(material)
	if err != nil || len(raw) != 1+ed25519.PublicKeySize || raw[0] != 0x04 {
		return nil, fmt.Errorf("cosigner vkey %q is not an Ed25519 cosignature/v1 key", vkey)
	}
	h := sha256.New()
	h.Write([]byte(name + "\n"))
	h.Write(raw)
	keyID := h.Sum(nil)[:4]
	if hex.EncodeToString(keyID) != id {
		return nil, fmt.Errorf("cosigner vkey %q: key ID %s, computed %x", vkey, id, keyID)
	}
	return cosigVerifier{name, binary.BigEndian.Uint32(keyID), ed25519.PublicKey(raw[1:]), seen}, nil
}

func check(c testCase) verdict {
	out := verdict{Name: c.Name, Verified: []string{}, Unverified: []string{}, Timestamps: []uint64{}}
	var verifiers []note.Verifier
	for _, vkey := range c.LogKeys {
		v, err := note.NewVerifier(vkey)
		if err != nil {
			out.Error = "log key: " + err.Error()
			return out
		}
		verifiers = append(verifiers, v)
	}
	for _, vkey := range c.Witnesses {
		v, err := newCosigVerifier(vkey, &out.Timestamps)
		if err != nil {
			out.Error = "witness key: " + err.Error()
			return out
		}
		verifiers = append(verifiers, v)
	}
	n, err := note.Open([]byte(c.Note), note.VerifierList(verifiers...))
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.OK = true
	for _, s := range n.Sigs {
		out.Verified = append(out.Verified, s.Name)
	}
	for _, s := range n.UnverifiedSigs {
		out.Unverified = append(out.Unverified, s.Name)
	}
	return out
}

func main() {
	var cases []testCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		fmt.Fprintln(os.Stderr, "reading the cases:", err)
		os.Exit(2)
	}
	verdicts := make([]verdict, 0, len(cases))
	for _, c := range cases {
		verdicts = append(verdicts, check(c))
	}
	if err := json.NewEncoder(os.Stdout).Encode(verdicts); err != nil {
		fmt.Fprintln(os.Stderr, "writing the verdicts:", err)
		os.Exit(2)
	}
}
