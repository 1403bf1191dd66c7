// Command gotlog checks a Questlog tree with Go's own transparency log code
// (golang.org/x/mod/sumdb/tlog and golang.org/x/mod/sumdb/note), which
// Questlog did not write. It reads one JSON document on stdin, made by
// tests/unit/test_go_tlog_interop.py, and writes one JSON document of verdicts
// on stdout: for each case whether Go accepted it, and Go's error if not. The
// Python test decides which cases had to pass and which had to be refused.
//
// Two mappings, because x/mod predates the C2SP specs:
//   - Go's tile paths carry the tile height, tile/8/<L>/<N>[.p/<W>], where
//     C2SP tlog-tiles paths have none, tile/<L>/<N>[.p/<W>]: a tile served at
//     tile/L/... is handed to Go as tile/8/L/... (height 8 both ways).
//   - tlog.ParseTree reads only the go.sum database's tree notes, whose first
//     line is "go.sum database tree"; a C2SP checkpoint's first line is the
//     log's origin. The origin line is checked here, then replaced by Go's
//     line so that ParseTree reads the size and the root hash.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const height = 8

type input struct {
	Entries     [][]byte      `json:"entries"`
	Nodes       []node        `json:"nodes"`
	Roots       []rootCase    `json:"roots"`
	Inclusion   []inclusion   `json:"inclusion"`
	Consistency []consistency `json:"consistency"`
	Tiles       []tileSet     `json:"tiles"`
	Checkpoints []checkpoint  `json:"checkpoints"`
}

// node is [level, index, hash] (the hash in base64).
type node [3]json.RawMessage

type rootCase struct {
	Size int64  `json:"size"`
	Root []byte `json:"root"`
}

type inclusion struct {
	Index int64    `json:"index"`
	Size  int64    `json:"size"`
	Leaf  []byte   `json:"leaf"`
	Root  []byte   `json:"root"`
	Proof [][]byte `json:"proof"`
}

type consistency struct {
	Old     int64    `json:"old"`
	New     int64    `json:"new"`
	OldRoot []byte   `json:"old_root"`
	NewRoot []byte   `json:"new_root"`
	Proof   [][]byte `json:"proof"`
}

type tileSet struct {
	Size    int64             `json:"size"`
	Root    []byte            `json:"root"`
	Tiles   map[string][]byte `json:"tiles"`
	Indexes []int64           `json:"indexes"`
	Compare bool              `json:"compare"`
}

type checkpoint struct {
	Note   string `json:"note"`
	Vkey   string `json:"vkey"`
	Origin string `json:"origin"`
	Size   int64  `json:"size"`
	Root   []byte `json:"root"`
}

type verdict struct {
	OK      bool     `json:"ok"`
	Error   string   `json:"error,omitempty"`
	GoProof [][]byte `json:"go_proof,omitempty"`
}

type output struct {
	LeafMismatches []int     `json:"leaf_mismatches"`
	Roots          []verdict `json:"roots"`
	Inclusion      []verdict `json:"inclusion"`
	Consistency    []verdict `json:"consistency"`
	Tiles          []verdict `json:"tiles"`
	Checkpoints    []verdict `json:"checkpoints"`
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "gotlog: reading stdin:", err)
		os.Exit(2)
	}
	stored, err := storedHashes(in.Nodes)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotlog:", err)
		os.Exit(2)
	}
	var out output
	out.LeafMismatches = []int{}
	for i, e := range in.Entries {
		if h, ok := stored[tlog.StoredHashIndex(0, int64(i))]; !ok || tlog.RecordHash(e) != h {
			out.LeafMismatches = append(out.LeafMismatches, i)
		}
	}
	reader := mapReader(stored)
	for _, c := range in.Roots {
		out.Roots = append(out.Roots, checkRoot(c, reader))
	}
	for _, c := range in.Inclusion {
		out.Inclusion = append(out.Inclusion, checkInclusion(c, reader))
	}
	for _, c := range in.Consistency {
		out.Consistency = append(out.Consistency, checkConsistency(c, reader))
	}
	for _, c := range in.Tiles {
		out.Tiles = append(out.Tiles, checkTiles(c, reader))
	}
	for _, c := range in.Checkpoints {
		out.Checkpoints = append(out.Checkpoints, checkCheckpoint(c))
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "gotlog: writing stdout:", err)
		os.Exit(2)
	}
}

// storedHashes indexes our complete-subtree nodes (level, index) the way Go
// numbers its stored hashes (tlog.StoredHashIndex).
func storedHashes(nodes []node) (map[int64]tlog.Hash, error) {
	stored := make(map[int64]tlog.Hash, len(nodes))
	for _, n := range nodes {
		var level int
		var index int64
		var raw []byte
		if json.Unmarshal(n[0], &level) != nil || json.Unmarshal(n[1], &index) != nil ||
			json.Unmarshal(n[2], &raw) != nil || len(raw) != tlog.HashSize {
			return nil, fmt.Errorf("malformed node %s", n)
		}
		stored[tlog.StoredHashIndex(level, index)] = toHash(raw)
	}
	return stored, nil
}

func mapReader(stored map[int64]tlog.Hash) tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			h, ok := stored[x]
			if !ok {
				level, n := tlog.SplitStoredHashIndex(x)
				return nil, fmt.Errorf("no stored node (%d, %d)", level, n)
			}
			out[i] = h
		}
		return out, nil
	})
}

func toHash(raw []byte) tlog.Hash {
	var h tlog.Hash
	copy(h[:], raw)
	return h
}

func hashes(raw [][]byte) []tlog.Hash {
	out := make([]tlog.Hash, len(raw))
	for i, r := range raw {
		out[i] = toHash(r)
	}
	return out
}

func raws(hs []tlog.Hash) [][]byte {
	out := make([][]byte, len(hs))
	for i := range hs {
		out[i] = append([]byte(nil), hs[i][:]...)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func fail(err error) verdict { return verdict{OK: false, Error: err.Error()} }

func checkRoot(c rootCase, r tlog.HashReader) verdict {
	h, err := tlog.TreeHash(c.Size, r)
	if err != nil {
		return fail(err)
	}
	if h != toHash(c.Root) || len(c.Root) != tlog.HashSize {
		return verdict{Error: fmt.Sprintf("Go's tree hash of size %d is %s", c.Size, h)}
	}
	return verdict{OK: true}
}

func checkInclusion(c inclusion, r tlog.HashReader) verdict {
	v := verdict{OK: true}
	if p, err := tlog.ProveRecord(c.Size, c.Index, r); err == nil {
		v.GoProof = raws(p)
	}
	if err := tlog.CheckRecord(hashes(c.Proof), c.Size, toHash(c.Root), c.Index, toHash(c.Leaf)); err != nil {
		v.OK, v.Error = false, err.Error()
	}
	return v
}

func checkConsistency(c consistency, r tlog.HashReader) verdict {
	v := verdict{OK: true}
	if p, err := tlog.ProveTree(c.New, c.Old, r); err == nil {
		v.GoProof = raws(p)
	}
	if err := tlog.CheckTree(hashes(c.Proof), c.New, toHash(c.NewRoot), c.Old, toHash(c.OldRoot)); err != nil {
		v.OK, v.Error = false, err.Error()
	}
	return v
}

// tileReader serves our tiles, named by C2SP paths, to Go, which asks by its
// own paths (tile/8/L/...).
type tileReader map[string][]byte

func (t tileReader) Height() int { return height }

func (t tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, tile := range tiles {
		path := c2spPath(tile)
		data, ok := t[path]
		if !ok {
			return nil, fmt.Errorf("no tile %s (Go's %s)", path, tile.Path())
		}
		out[i] = data
	}
	return out, nil
}

func (t tileReader) SaveTiles([]tlog.Tile, [][]byte) {}

// c2spPath is the C2SP tlog-tiles path of a Go tile: Go's path without its height.
func c2spPath(t tlog.Tile) string {
	return "tile/" + strings.TrimPrefix(t.Path(), fmt.Sprintf("tile/%d/", t.H))
}

// checkTiles checks each of our tiles against the bytes Go's ReadTileData
// makes from our stored nodes (when asked to compare), then reads the tree through Go's
// TileHashReader (which authenticates every tile it loads against the tree
// hash): the tree hash and an inclusion proof of each index.
func checkTiles(c tileSet, r tlog.HashReader) verdict {
	for path, data := range c.Tiles {
		if !c.Compare {
			break
		}
		goTile, err := tlog.ParseTilePath(strings.Replace(path, "tile/", fmt.Sprintf("tile/%d/", height), 1))
		if err != nil {
			return fail(err)
		}
		want, err := tlog.ReadTileData(goTile, r)
		if err != nil {
			return fail(err)
		}
		if string(want) != string(data) {
			return verdict{Error: fmt.Sprintf("tile %s differs from Go's ReadTileData", path)}
		}
	}
	tree := tlog.Tree{N: c.Size, Hash: toHash(c.Root)}
	thr := tlog.TileHashReader(tree, tileReader(c.Tiles))
	h, err := tlog.TreeHash(c.Size, thr)
	if err != nil {
		return fail(err)
	}
	if h != tree.Hash {
		return verdict{Error: "the tree hash read through the tiles differs"}
	}
	for _, index := range c.Indexes {
		p, err := tlog.ProveRecord(c.Size, index, thr)
		if err != nil {
			return fail(err)
		}
		leaf, err := thr.ReadHashes([]int64{tlog.StoredHashIndex(0, index)})
		if err != nil {
			return fail(err)
		}
		if err := tlog.CheckRecord(p, c.Size, tree.Hash, index, leaf[0]); err != nil {
			return fail(err)
		}
	}
	return verdict{OK: true}
}

// checkCheckpoint opens our signed C2SP checkpoint with a verifier made from
// our vkey text, checks its origin line, then reads its size and root with
// tlog.ParseTree (after swapping the origin for Go's tree-note first line).
func checkCheckpoint(c checkpoint) verdict {
	v, err := note.NewVerifier(c.Vkey)
	if err != nil {
		return fail(err)
	}
	n, err := note.Open([]byte(c.Note), note.VerifierList(v))
	if err != nil {
		return fail(err)
	}
	origin, rest, found := strings.Cut(n.Text, "\n")
	if !found || origin != c.Origin {
		return verdict{Error: fmt.Sprintf("origin line %q, expected %q", origin, c.Origin)}
	}
	if v.Name() != origin {
		return verdict{Error: fmt.Sprintf("signed by %q, not the origin %q", v.Name(), origin)}
	}
	tree, err := tlog.ParseTree([]byte("go.sum database tree\n" + rest))
	if err != nil {
		return fail(err)
	}
	if tree.N != c.Size || tree.Hash != toHash(c.Root) {
		return verdict{Error: fmt.Sprintf("checkpoint holds size %d root %s", tree.N, tree.Hash)}
	}
	return verdict{OK: true}
}
