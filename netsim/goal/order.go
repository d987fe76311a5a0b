package goal

// The order in which the LogGOPS loop starts operations freed together: by kind, the written
// order kept (stableByKind, Options.StdSort false), or as LogGOPSim's std::sort leaves them
// (typeSorter, a step-by-step copy of libstdc++'s introsort).

import "math/bits"

// stableByKind sorts a by kind (send, recv, calc), keeping the written order within a kind.
func stableByKind(a []uint32, ops []Op, scratch *[]uint32) {
	sorted := true
	for i := 1; i < len(a); i++ {
		if ops[a[i]].Kind < ops[a[i-1]].Kind {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	b := append((*scratch)[:0], a...)
	k := 0
	for kind := Send; kind <= Calc; kind++ {
		for _, x := range b {
			if ops[x].Kind == kind {
				a[k] = x
				k++
			}
		}
	}
	*scratch = b
}

// typeSorter sorts newly free operations by type with libstdc++'s std::sort, which is what
// LogGOPSim's std::sort(free_ops, gnp_op_comp_func) does: the order among operations of one
// type is not kept, and it decides which of them LogGOPSim starts first. This is
// libstdc++'s introsort (bits/stl_algo.h: __introsort_loop with _S_threshold 16, median of
// three to the first, unguarded partition, heap sort past the depth limit, final insertion
// sort), step by step.
type typeSorter struct {
	a   []uint32
	ops []Op
}

func (t *typeSorter) less(x, y uint32) bool { return t.ops[x].Kind < t.ops[y].Kind }

func (t *typeSorter) sort(a []uint32, ops []Op) {
	if len(a) < 2 {
		return
	}
	t.a, t.ops = a, ops
	n := len(a)
	t.introsortLoop(0, n, 2*(bits.Len(uint(n))-1))
	t.finalInsertionSort(0, n)
	t.a, t.ops = nil, nil
}

const sThreshold = 16

func (t *typeSorter) introsortLoop(first, last, depth int) {
	for last-first > sThreshold {
		if depth == 0 {
			t.heapSort(first, last)
			return
		}
		depth--
		cut := t.partitionPivot(first, last)
		t.introsortLoop(cut, last, depth)
		last = cut
	}
}

func (t *typeSorter) swap(i, j int) { t.a[i], t.a[j] = t.a[j], t.a[i] }

func (t *typeSorter) partitionPivot(first, last int) int {
	mid := first + (last-first)/2
	t.medianToFirst(first, first+1, mid, last-1)
	return t.partition(first+1, last, first)
}

func (t *typeSorter) medianToFirst(result, a, b, c int) {
	A := t.a
	switch {
	case t.less(A[a], A[b]):
		switch {
		case t.less(A[b], A[c]):
			t.swap(result, b)
		case t.less(A[a], A[c]):
			t.swap(result, c)
		default:
			t.swap(result, a)
		}
	case t.less(A[a], A[c]):
		t.swap(result, a)
	case t.less(A[b], A[c]):
		t.swap(result, c)
	default:
		t.swap(result, b)
	}
}

func (t *typeSorter) partition(first, last, pivot int) int {
	A := t.a
	for {
		for t.less(A[first], A[pivot]) {
			first++
		}
		last--
		for t.less(A[pivot], A[last]) {
			last--
		}
		if first >= last {
			return first
		}
		t.swap(first, last)
		first++
	}
}

func (t *typeSorter) finalInsertionSort(first, last int) {
	if last-first > sThreshold {
		t.insertionSort(first, first+sThreshold)
		for i := first + sThreshold; i < last; i++ {
			t.linearInsert(i)
		}
		return
	}
	t.insertionSort(first, last)
}

func (t *typeSorter) insertionSort(first, last int) {
	A := t.a
	for i := first + 1; i < last; i++ {
		if t.less(A[i], A[first]) {
			v := A[i]
			copy(A[first+1:i+1], A[first:i])
			A[first] = v
		} else {
			t.linearInsert(i)
		}
	}
}

func (t *typeSorter) linearInsert(last int) {
	A := t.a
	v := A[last]
	next := last - 1
	for t.less(v, A[next]) {
		A[last] = A[next]
		last = next
		next--
	}
	A[last] = v
}

// heapSort is std::partial_sort(first, last, last): make_heap, then sort_heap.
func (t *typeSorter) heapSort(first, last int) {
	n := last - first
	if n >= 2 {
		for parent := (n - 2) / 2; ; parent-- {
			t.adjustHeap(first, parent, n, t.a[first+parent])
			if parent == 0 {
				break
			}
		}
	}
	for last-first > 1 {
		last--
		v := t.a[last]
		t.a[last] = t.a[first]
		t.adjustHeap(first, 0, last-first, v)
	}
}

func (t *typeSorter) adjustHeap(first, hole, n int, v uint32) {
	A := t.a
	top, second := hole, hole
	for second < (n-1)/2 {
		second = 2 * (second + 1)
		if t.less(A[first+second], A[first+second-1]) {
			second--
		}
		A[first+hole] = A[first+second]
		hole = second
	}
	if n&1 == 0 && second == (n-2)/2 {
		second = 2 * (second + 1)
		A[first+hole] = A[first+second-1]
		hole = second - 1
	}
	parent := (hole - 1) / 2
	for hole > top && t.less(A[first+parent], v) {
		A[first+hole] = A[first+parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	A[first+hole] = v
}
