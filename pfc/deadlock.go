package pfc

// FindCycle returns one directed cycle of the graph given by its adjacency lists, as the
// vertices in order (each waits on the next, the last on the first), or nil if the graph has
// none. The cycle returned starts at its smallest vertex, so the same cycle found twice reads
// the same. Iterative depth-first search: O(V + E), no recursion depth limit.
func FindCycle(adj [][]int) []int {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(adj))
	type frame struct{ v, next int }
	for root := range adj {
		if state[root] != unseen {
			continue
		}
		stack := []frame{{root, 0}}
		state[root] = onPath
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(adj[top.v]) {
				state[top.v] = done
				stack = stack[:len(stack)-1]
				continue
			}
			w := adj[top.v][top.next]
			top.next++
			switch state[w] {
			case unseen:
				state[w] = onPath
				stack = append(stack, frame{w, 0})
			case onPath:
				var cycle []int
				for i := len(stack) - 1; i >= 0; i-- {
					cycle = append(cycle, stack[i].v)
					if stack[i].v == w {
						break
					}
				}
				for i, j := 0, len(cycle)-1; i < j; i, j = i+1, j-1 {
					cycle[i], cycle[j] = cycle[j], cycle[i]
				}
				return rotateToMin(cycle)
			}
		}
	}
	return nil
}

func rotateToMin(c []int) []int {
	m := 0
	for i, v := range c {
		if v < c[m] {
			m = i
		}
	}
	return append(append([]int(nil), c[m:]...), c[:m]...)
}
