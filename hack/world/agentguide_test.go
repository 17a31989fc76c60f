//go:build !cluster

// The local runner only: the chart's world (-tags cluster) serves the guide
// of a world that trusts an external identity provider (its docs service is
// not told that identity also serves the development one), whose first
// lines cannot be run without that provider.

package world_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/hack/world"
)

// TestAgentGuideCurlLinesWork reads /agent.txt as an agent would and runs
// every curl line of it, in order, against a fresh world: each must
// succeed. The guide's shell (variables, $(...) pipelines of printf, jq,
// base64 and tr, and its sign function) is played by guideShell, so the
// test needs no tools beyond Go; a line it cannot play fails the test, so
// a new kind of example is noticed rather than passed over.
func TestAgentGuideCurlLinesWork(t *testing.T) {
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "guide-token-0123456789"})
	defer w.Stop(20 * time.Second)
	resp, err := http.Get(w.URL + "/agent.txt")
	if err != nil {
		t.Fatal(err)
	}
	guide, _ := io.ReadAll(resp.Body)
	resp.Body.Close()

	sh := &guideShell{t: t, vars: map[string]string{
		"WORLD": w.URL,
		// The guide leaves the backup key to the reader.
		"MY_BACKUP_KEY": "a key the agent keeps",
	}, files: map[string][]byte{}}
	ran := 0
	for _, cmd := range guideCommands(string(guide)) {
		switch {
		case strings.HasPrefix(cmd, "curl "):
			sh.curl(cmd)
			ran++
		case assignment.MatchString(cmd):
			sh.assign(cmd)
		}
	}
	if ran < 20 {
		t.Fatalf("ran only %d curl lines of /agent.txt", ran)
	}
}

// assignment is a shell variable set by the guide (WORLD=..., CERT=$(...)).
var assignment = regexp.MustCompile(`^[A-Z_]+=`)

// guideCommands returns the guide's example lines (indented by two
// spaces), each continued line (ending in \) joined to the next.
func guideCommands(guide string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(guide, "\n") {
		if cur.Len() == 0 && !strings.HasPrefix(line, "  ") {
			continue
		}
		text := strings.TrimSpace(line)
		if strings.HasSuffix(text, `\`) {
			cur.WriteString(strings.TrimSuffix(text, `\`))
			continue
		}
		cur.WriteString(text)
		out = append(out, cur.String())
		cur.Reset()
	}
	return out
}

// guideShell plays the part of the shell the guide's examples need.
type guideShell struct {
	t     *testing.T
	vars  map[string]string
	files map[string][]byte
}

func (s *guideShell) assign(cmd string) {
	name, value, _ := strings.Cut(cmd, "=")
	if name == "WORLD" { // the guide's default address; this world listens elsewhere
		return
	}
	words := s.words(value)
	if len(words) != 1 {
		s.t.Fatalf("cannot play the assignment %q", cmd)
	}
	s.vars[name] = words[0]
}

// curl runs one curl line and fails the test unless the world answers 2xx.
func (s *guideShell) curl(cmd string) {
	s.t.Helper()
	words := s.words(cmd)
	method, url, out := "GET", "", ""
	var body []byte
	header := http.Header{}
	for i := 1; i < len(words); i++ {
		switch w := words[i]; {
		case w == "-s" || w == "-sN":
		case w == "-X":
			i++
			method = words[i]
		case w == "-H":
			i++
			k, v, _ := strings.Cut(words[i], ":")
			header.Add(k, strings.TrimSpace(v))
		case w == "-d":
			i++
			body = []byte(words[i])
			if method == "GET" {
				method = "POST"
			}
		case w == ">":
			i++
			out = words[i]
		case strings.HasPrefix(w, "http"):
			url = w
		default:
			s.t.Fatalf("cannot play %q of %q", w, cmd)
		}
	}
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		s.t.Fatalf("%q: %v", cmd, err)
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%q: %v", cmd, err)
	}
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		if resp.StatusCode != 200 {
			s.t.Fatalf("/agent.txt's %q answered %d", cmd, resp.StatusCode)
		}
		return // a live stream: it answered, and never ends
	}
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		s.t.Fatalf("/agent.txt's %q answered %d: %s", cmd, resp.StatusCode, raw)
	}
	if out != "" {
		s.files[out] = raw
	}
	// The guide restores and deletes "$BACKUP_ID": the backup_id the
	// backup answered, as an agent reading the answer would keep it.
	var answer struct {
		BackupID string `json:"backup_id"`
	}
	if json.Unmarshal(raw, &answer) == nil && answer.BackupID != "" {
		s.vars["BACKUP_ID"] = answer.BackupID
	}
}

// words splits a command line as the shell does: quotes, $VAR and $(...).
func (s *guideShell) words(line string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				out, inWord = append(out, cur.String()), false
				cur.Reset()
			}
			continue
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			cur.WriteString(line[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			i = s.quoted(line, i+1, &cur)
		case c == '$':
			i = s.expand(line, i, &cur)
		default:
			cur.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// quoted reads a double-quoted string from i, expanding into cur, and
// returns the index of its closing quote.
func (s *guideShell) quoted(line string, i int, cur *strings.Builder) int {
	for ; line[i] != '"'; i++ {
		switch {
		case line[i] == '\\' && strings.IndexByte(`"\$`, line[i+1]) >= 0:
			i++
			cur.WriteByte(line[i])
		case line[i] == '$':
			i = s.expand(line, i, cur)
		default:
			cur.WriteByte(line[i])
		}
	}
	return i
}

var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*`)

// expand writes the value of $VAR or $(...) at i and returns the index of
// its last character.
func (s *guideShell) expand(line string, i int, cur *strings.Builder) int {
	if line[i+1] != '(' {
		name := varName.FindString(line[i+1:])
		v, ok := s.vars[name]
		if !ok {
			s.t.Fatalf("/agent.txt uses $%s before it is set: %q", name, line)
		}
		cur.WriteString(v)
		return i + len(name)
	}
	depth, quote := 0, byte(0)
	for j := i + 1; j < len(line); j++ {
		switch c := line[j]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				cur.WriteString(s.pipeline(line[i+2 : j]))
				return j
			}
		}
	}
	s.t.Fatalf("unclosed $( in %q", line)
	return len(line)
}

// pipeline runs a $(...) of the guide: stages joined by |.
func (s *guideShell) pipeline(cmd string) string {
	var data []byte
	for _, stage := range strings.Split(cmd, " | ") {
		w := s.words(stage)
		switch {
		case w[0] == "printf" && len(w) == 2:
			data = []byte(strings.ReplaceAll(w[1], `\n`, "\n"))
		case w[0] == "jq" && len(w) == 4 && (w[1] == "-r" || w[1] == "-c"):
			var doc map[string]json.RawMessage
			if err := json.Unmarshal(s.files[w[3]], &doc); err != nil {
				s.t.Fatalf("%s is not JSON: %v", w[3], err)
			}
			v := doc[strings.TrimPrefix(w[2], ".")]
			var str string
			if w[1] == "-r" && json.Unmarshal(v, &str) == nil {
				data = []byte(str + "\n")
			} else {
				var b bytes.Buffer
				_ = json.Compact(&b, v)
				data = append(b.Bytes(), '\n')
			}
		case w[0] == "base64" && len(w) == 1:
			data = wrap76(base64.StdEncoding.EncodeToString(data))
		case w[0] == "tr" && len(w) == 3 && w[1] == "-d" && w[2] == `\n`:
			data = bytes.ReplaceAll(data, []byte("\n"), nil)
		case w[0] == "sign" && len(w) >= 3:
			data = []byte(s.sign(w[1], w[2], strings.Join(w[3:], " ")))
		default:
			s.t.Fatalf("cannot play %q of /agent.txt", stage)
		}
	}
	return strings.TrimRight(string(data), "\n") // as $(...) drops trailing newlines
}

// wrap76 is GNU base64's output: lines of 76 characters, a final newline.
func wrap76(s string) []byte {
	var b bytes.Buffer
	for len(s) > 76 {
		b.WriteString(s[:76] + "\n")
		s = s[76:]
	}
	b.WriteString(s + "\n")
	return b.Bytes()
}

// sign is the guide's sign function, as its text describes it: the
// development provider's private_key (an Ed25519 seed) over METHOD,
// TARGET, t, the body's sha256 and a fresh nonce, joined by "\n".
func (s *guideShell) sign(method, target, body string) string {
	var id struct {
		PrivateKey string `json:"private_key"`
	}
	_ = json.Unmarshal(s.files["identity.json"], &id)
	seed, err := base64.StdEncoding.DecodeString(id.PrivateKey)
	if err != nil || len(seed) != ed25519.SeedSize {
		s.t.Fatalf("identity.json holds no private_key to sign with")
	}
	t := strconv.FormatInt(time.Now().Unix(), 10)
	n := make([]byte, 16)
	_, _ = rand.Read(n)
	nonce := hex.EncodeToString(n)
	h := sha256.Sum256([]byte(body))
	msg := fmt.Sprintf("%s\n%s\n%s\n%s\n%s", method, target, t, hex.EncodeToString(h[:]), nonce)
	sig := ed25519.Sign(ed25519.NewKeyFromSeed(seed), []byte(msg))
	return "t=" + t + ",n=" + nonce + ",sig=" + base64.StdEncoding.EncodeToString(sig)
}
