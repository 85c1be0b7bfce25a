package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/blockamg/blockamg/mesh"
)

func init() {
	register("mesh", "summarize a Gmsh mesh: nodes, elements by type, physical groups, element quality", runMesh)
}

// meshReport is mesh's JSON: the summary, the reader's warnings and, when an
// element is inverted or degenerate, Check's complaint (the exit status is then 2).
type meshReport struct {
	File     string       `json:"file"`
	Summary  mesh.Summary `json:"summary"`
	Warnings []string     `json:"warnings"`
	Problem  string       `json:"problem,omitempty"`
}

func runMesh(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("mesh", "PART.msh [--json]", stderr)
	asJSON := fs.Bool("json", false, "print one JSON object instead of the table")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("want one mesh file, got %d arguments", len(pos))
	}
	m, warns, err := mesh.ReadFile(pos[0])
	if err != nil {
		return err
	}
	rep := meshReport{File: pos[0], Summary: m.Summary(), Warnings: []string{}}
	for _, w := range warns {
		rep.Warnings = append(rep.Warnings, w.String())
	}
	bad := m.Check()
	if bad != nil {
		rep.Problem = bad.Error()
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		for _, w := range rep.Warnings {
			fmt.Fprintf(stderr, "blockamg mesh: warning: %s\n", w)
		}
		fmt.Fprintf(stdout, "%s\n", pos[0])
		if err := rep.Summary.Write(stdout); err != nil {
			return err
		}
	}
	if bad != nil {
		return fmt.Errorf("%s: %w", pos[0], bad)
	}
	return nil
}
