package cudadrv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ebitengine/purego"
)

// What cuSPARSE and NVRTC share in being found and bound at run time: a list of
// candidate files or sonames tried in order, helper libraries opened globally before
// (libnvJitLink, libnvrtc-builtins) so that the library's own lookups by soname find
// them, and a table of entry points.

// openFirst opens the first of candidates that the dynamic loader accepts, globally.
// A candidate with a directory is skipped when the file is missing, and before (when
// not nil) is called with its directory just before it is opened. It returns the
// handle and the candidate, or 0 and a description of what was tried (the loader's
// reason for every file that exists but would not open) for the caller's error.
func openFirst(candidates []string, before func(dir string)) (h uintptr, path, failed string) {
	var tried, reasons []string
	for _, c := range candidates {
		file := strings.Contains(c, "/")
		if file {
			if _, err := os.Stat(c); err != nil {
				tried = append(tried, c)
				continue
			}
			if before != nil {
				before(filepath.Dir(c))
			}
		}
		h, err := purego.Dlopen(c, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil {
			return h, c, ""
		}
		tried = append(tried, c)
		if file {
			reasons = append(reasons, fmt.Sprintf("%s: %v", c, err))
		}
	}
	failed = "tried " + strings.Join(tried, ", ")
	if len(reasons) > 0 {
		failed += "; " + strings.Join(reasons, "; ")
	}
	return 0, "", failed
}

// preloadFirst opens, globally, the first file matching one of the glob patterns (in
// order) that the loader accepts. Failures are ignored: the library that needs it may
// still find it itself, and reports it if not.
func preloadFirst(patterns ...string) {
	for _, pat := range patterns {
		m, _ := filepath.Glob(pat)
		for _, f := range m {
			if _, err := purego.Dlopen(f, purego.RTLD_NOW|purego.RTLD_GLOBAL); err == nil {
				return
			}
		}
	}
}

// symbol is one entry point to bind: fptr, a pointer to a func variable, gets the
// exported function name.
type symbol struct {
	fptr any
	name string
}

// bindAll binds every symbol of h, or returns the name of the first one missing.
func bindAll(h uintptr, syms []symbol) (missing string, ok bool) {
	for _, s := range syms {
		if _, err := bind(h, s.fptr, []string{s.name}); err != nil {
			return s.name, false
		}
	}
	return "", true
}
