package mesh

// tagIndex maps a file's tags (node tags, element tags) to 0-based indices. Gmsh
// numbers nodes and elements contiguously, so a dense table from the smallest tag
// serves almost every file; tags far outside it (sparse numbering, hand-written files)
// go to a map. The table grows with the tags actually added, never with what a header
// claims, so a lying header cannot make it large.
type tagIndex struct {
	lo     int64
	dense  []int32 // index+1 of tag lo+i; 0: not present
	sparse map[int64]int32
	n      int // tags added
}

// init starts an index whose dense table begins at tag lo with room for hint tags.
func (t *tagIndex) init(lo int64, hint int) {
	*t = tagIndex{lo: lo, dense: make([]int32, min(hint, 1<<26))}
}

// denseLimit is how long the dense table may grow with n tags in it: a table at most
// four times (plus a little) the number of tags is cheaper than a map entry per tag.
func denseLimit(n int) int64 { return 4*int64(n) + 1024 }

// add records tag → idx and reports false, changing nothing, when tag is present.
func (t *tagIndex) add(tag int64, idx int32) bool {
	if tag >= t.lo && tag-t.lo < denseLimit(t.n) {
		i := tag - t.lo
		if t.sparse != nil {
			if _, dup := t.sparse[tag]; dup {
				return false // added when the table did not reach it yet
			}
		}
		if i >= int64(len(t.dense)) {
			nl := min(max(2*int64(len(t.dense)), i+1), denseLimit(t.n))
			nd := make([]int32, nl)
			copy(nd, t.dense)
			t.dense = nd
		}
		if t.dense[i] != 0 {
			return false
		}
		t.dense[i] = idx + 1
		t.n++
		return true
	}
	if _, dup := t.get(tag); dup {
		return false
	}
	if t.sparse == nil {
		t.sparse = make(map[int64]int32)
	}
	t.sparse[tag] = idx
	t.n++
	return true
}

// get returns the index of tag.
func (t *tagIndex) get(tag int64) (int32, bool) {
	if i := tag - t.lo; tag >= t.lo && i < int64(len(t.dense)) {
		if v := t.dense[i]; v != 0 {
			return v - 1, true
		}
	}
	v, ok := t.sparse[tag]
	return v, ok
}
