package amg

// Aggregates partitions the nodes of a level into aggregates, the nodes of the next
// coarser level. It is plain data: the aggregate of every node and the member lists.
type Aggregates struct {
	Count int     // number of aggregates
	Of    []int32 // aggregate of each node; -1 for a node left out of every aggregate
	Ptr   []int64 // members of aggregate a are Nodes[Ptr[a]:Ptr[a+1]], ascending
	Nodes []int32 // the members of every aggregate, aggregate after aggregate
	Roots []int32 // the MIS root each aggregate grew from
	// Rounds is the synchronous MIS rounds AggregateRounds took (0 from Aggregate).
	Rounds int
	// DiagExp is the graph's Graph.DiagExp (the scale of every unknown of the level,
	// shared, not copied), for Tentative's row weights; nil when the graph had none.
	DiagExp []int16
}

// Members returns the nodes of aggregate a in ascending order (aliasing agg.Nodes).
func (agg *Aggregates) Members(a int) []int32 { return agg.Nodes[agg.Ptr[a]:agg.Ptr[a+1]] }

// Aggregate partitions the nodes of g the way PETSc GAMG does, deterministically:
//
//  1. A greedy maximal independent set is grown in node order, on the squared graph
//     when distance2 is set (roots at least three edges apart) and on g otherwise;
//     each new root takes every still-free node within distance 2 (or 1) of it.
//  2. With distance2, each root then takes back all of its direct neighbours
//     (GAMG's fix-up with the unsquared graph), so every aggregate holds its root's
//     whole neighbourhood.
//  3. Aggregates with fewer than minNodes nodes (too few rows for the near-null
//     space) are merged into the aggregate of their first neighbour outside them.
//
// Nodes without any neighbour in g (Dirichlet rows, or nodes whose couplings fell
// under the threshold) join no aggregate, as in GAMG: their rows of the tentative
// prolongator are empty and the smoother alone handles them. So does a group of
// nodes that is too small and has no neighbour to merge into. Every other node lies
// in exactly one aggregate.
func Aggregate(g *Graph, distance2 bool, minNodes int) *Aggregates {
	n := g.Nodes
	const free = -2
	of := make([]int32, n)
	for i := range of {
		of[i] = free
	}
	var roots []int32
	for i := 0; i < n; i++ {
		if of[i] != free {
			continue
		}
		if g.Degree(i) == 0 {
			of[i] = -1
			continue
		}
		a := int32(len(roots))
		roots = append(roots, int32(i))
		of[i] = a
		for _, j := range g.Neighbors(i) {
			if of[j] == free {
				of[j] = a
			}
		}
		if distance2 {
			for _, j := range g.Neighbors(i) {
				for _, l := range g.Neighbors(int(j)) {
					if of[l] == free {
						of[l] = a
					}
				}
			}
		}
	}
	if distance2 {
		// Roots are three or more edges apart, so no node neighbours two roots and
		// the order of these takings does not matter.
		for a, r := range roots {
			for _, j := range g.Neighbors(int(r)) {
				of[j] = int32(a)
			}
		}
	}
	agg := mergeSmall(g, of, roots, minNodes)
	agg.DiagExp = g.DiagExp
	return agg
}

// mergeSmall merges aggregates with fewer than minNodes nodes into a neighbouring one
// (or dissolves them when they have no outside neighbour), renumbers the survivors in
// root order and builds the member lists.
func mergeSmall(g *Graph, of []int32, roots []int32, minNodes int) *Aggregates {
	n := len(of)
	m := len(roots)
	members := buildMembers(of, m)
	size := make([]int, m)
	for a := 0; a < m; a++ {
		size[a] = int(members.ptr[a+1] - members.ptr[a])
	}
	into := make([]int32, m) // aggregate a was merged into into[a] (itself if kept; -1 dissolved)
	for a := range into {
		into[a] = int32(a)
	}
	find := func(a int32) int32 {
		for a >= 0 && into[a] != a {
			a = into[a]
		}
		return a
	}
	for a := 0; a < m; a++ {
		if size[a] >= minNodes {
			continue
		}
		target := int32(-1)
	search:
		for _, v := range members.nodes[members.ptr[a]:members.ptr[a+1]] {
			for _, u := range g.Neighbors(int(v)) {
				if of[u] < 0 {
					continue
				}
				if t := find(of[u]); t >= 0 && t != int32(a) {
					target = t
					break search
				}
			}
		}
		into[a] = target
		if target >= 0 {
			size[target] += size[a]
		}
		size[a] = 0
	}
	// Renumber surviving aggregates in root order.
	newID := make([]int32, m)
	agg := &Aggregates{}
	for a := 0; a < m; a++ {
		if into[a] == int32(a) {
			newID[a] = int32(agg.Count)
			agg.Roots = append(agg.Roots, roots[a])
			agg.Count++
		}
	}
	agg.Of = make([]int32, n)
	for v, a := range of {
		agg.Of[v] = -1
		if a >= 0 {
			if t := find(a); t >= 0 {
				agg.Of[v] = newID[t]
			}
		}
	}
	final := buildMembers(agg.Of, agg.Count)
	agg.Ptr, agg.Nodes = final.ptr, final.nodes
	return agg
}

type memberLists struct {
	ptr   []int64
	nodes []int32
}

// buildMembers groups the nodes by aggregate (ascending inside each), skipping -1.
func buildMembers(of []int32, m int) memberLists {
	ptr := make([]int64, m+1)
	for _, a := range of {
		if a >= 0 {
			ptr[a+1]++
		}
	}
	for a := 0; a < m; a++ {
		ptr[a+1] += ptr[a]
	}
	nodes := make([]int32, ptr[m])
	next := append([]int64(nil), ptr[:m]...)
	for v, a := range of {
		if a >= 0 {
			nodes[next[a]] = int32(v)
			next[a]++
		}
	}
	return memberLists{ptr, nodes}
}
